package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
)

// A node on a slow link that works (QA: 300–800 ms each way) keeps its id: each refresh comes
// back well within the slow-link rule's 2 s, though not within a heartbeat interval.
func TestClaimRefreshOverASlowLinkKeepsTheClaim(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	direct, err := nats.Connect(ns.ClientURL())
	require.NoError(t, err)
	t.Cleanup(direct.Close)
	js, err := jetstream.New(direct)
	require.NoError(t, err)
	kv, err := js.CreateKeyValue(t.Context(), jetstream.KeyValueConfig{Bucket: NodeBucket, TTL: claimTTL})
	require.NoError(t, err)

	slow := startLateLink(t, ns.Addr().String(), 700*time.Millisecond)
	nc, err := nats.Connect("nats://"+slow, nats.Timeout(10*time.Second))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	log := &logtest.Buffer{}
	c, err := claimNode(t.Context(), nc, "n1", "boot-1", slog.New(slog.NewTextHandler(log, nil)), nil)
	require.NoError(t, err)
	t.Cleanup(func() { c.Release(t.Context()) })

	// Refreshes written over twice the claim's TTL: a claim not refreshed would have lapsed.
	rev := func() uint64 { c.mu.Lock(); defer c.mu.Unlock(); return c.rev }
	first, since := rev(), time.Now()
	for deadline := time.Now().Add(30 * time.Second); rev() < first+4 || time.Since(since) <= 2*claimTTL; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the claim was not refreshed over the slow link (revision %d, from %d); the holder logged:\n%s", rev(), first, log.String())
		}
	}
	require.NotContains(t, log.String(), "claimed again", "the claim lapsed")
	require.NotContains(t, log.String(), "not refreshed", "a refresh failed")
	e, err := kv.Get(t.Context(), "n1")
	require.NoError(t, err)
	require.Contains(t, string(e.Value()), `"boot-1"`, "the claim is not this node's")
}

// startLateLink forwards TCP to target, every byte either way arriving delay after it was sent
// (farmtest.Forward's shape; package broker cannot import farmtest). It returns the address.
func startLateLink(t *testing.T, target string, delay time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				_ = in.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, in, out)
			mu.Unlock()
			wg.Go(func() { latePipe(out, in, delay) })
			wg.Go(func() { latePipe(in, out, delay) })
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}

// latePipe copies src to dst, each chunk written delay after it was read, in order: a long or
// slow network path.
func latePipe(dst, src net.Conn, delay time.Duration) {
	type chunk struct {
		b   []byte
		due time.Time
	}
	chunks := make(chan chunk, 1<<12)
	go func() {
		defer close(chunks)
		for {
			b := make([]byte, 32<<10)
			n, err := src.Read(b)
			if n > 0 {
				chunks <- chunk{b[:n], time.Now().Add(delay)}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range chunks {
		time.Sleep(time.Until(c.due)) // the link's latency, not a wait in the test
		if _, err := dst.Write(c.b); err != nil {
			_ = src.Close()
			break
		}
	}
	_ = dst.Close()
	for range chunks { // let the reader end
	}
}

// A refresh that timed out says to look at the link and the server, not the data disk (QA: a
// slow link's WARN sent operators to df).
func TestClaimRefreshTimeoutBlamesTheLinkNotTheDisk(t *testing.T) {
	require.Contains(t, refreshHint(context.DeadlineExceeded), "check the link to NATS")
	require.Contains(t, refreshHint(fmt.Errorf("update: %w", nats.ErrTimeout)), "check the link to NATS")
	require.Contains(t, refreshHint(errors.New("insufficient storage")), "check its data disk")
}
