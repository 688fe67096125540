package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/internal/tcplink"
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

	slow := tcplink.Forward(t, ns.Addr().String(), tcplink.Delay(tcplink.Fixed(400*time.Millisecond)))
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

// A refresh that timed out says to look at the link and the server, not the data disk (QA: a
// slow link's WARN sent operators to df).
func TestClaimRefreshTimeoutBlamesTheLinkNotTheDisk(t *testing.T) {
	require.Contains(t, refreshHint(context.DeadlineExceeded), "check the link to NATS")
	require.Contains(t, refreshHint(fmt.Errorf("update: %w", nats.ErrTimeout)), "check the link to NATS")
	require.Contains(t, refreshHint(errors.New("insufficient storage")), "check its data disk")
}
