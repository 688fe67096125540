package nodes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/nodes"
	"github.com/corral-farm/corral/nodes/sim"
)

// Review of the silence check: a node whose round trip to NATS takes longer than a heartbeat
// interval (a distant node, a slow link) is not silent: its heartbeats reach the farm a moment
// late and the farm does not declare it lost. Each of its round trips was given a heartbeat
// interval and failed, so two seconds on every lease request was refused node_lost and every
// task asked its caller first, with nothing logged. Here the node's link adds 300 ms each way:
// for three times LostAfter it grants leases and runs tasks with no question to their callers,
// and says nothing of a silence.
func TestSlowLinkIsNoSilence(t *testing.T) {
	const node = "n1"
	const taskSerial, leaseSerial = "n1-task", "n1-lease"
	log := slog.New(slog.DiscardHandler)
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, log)
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	gwNC, err := broker.Connect(broker.ConnectOptions{URL: ns.ClientURL(), Name: "gateway"}, log)
	require.NoError(t, err)
	t.Cleanup(gwNC.Close)
	stores, err := broker.EnsureStores(ctx, gwNC, broker.StoreOptions{})
	require.NoError(t, err)
	gw, err := broker.NewClient(ctx, gwNC, stores, broker.ClientOptions{Log: log, Reap: true})
	require.NoError(t, err)
	require.NoError(t, gw.WaitReady(ctx))

	link := startSlowLink(t, ns.Addr().String(), 300*time.Millisecond)
	nodeNC, err := broker.Connect(broker.ConnectOptions{URL: "nats://" + link.Addr().String(), Name: "node-" + node}, log)
	require.NoError(t, err)
	t.Cleanup(nodeNC.Close)
	started := time.Now()
	require.NoError(t, nodeNC.Flush())
	require.GreaterOrEqual(t, time.Since(started), 600*time.Millisecond, "the link adds no delay")
	nodeStores, err := broker.EnsureStores(ctx, nodeNC, broker.StoreOptions{})
	require.NoError(t, err)
	var said logtest.Buffer
	n, err := nodes.Start(ctx, nodes.Config{ID: node, NC: nodeNC, Stores: nodeStores, Metrics: actors.NewMetrics(prometheus.NewRegistry()),
		Log: slog.New(slog.NewTextHandler(&said, nil))})
	require.NoError(t, err)
	t.Cleanup(n.Stop)
	for _, serial := range []string{taskSerial, leaseSerial} {
		p := sim.New(serial)
		t.Cleanup(func() { _ = p.Close() })
		n.AddDriver(p)
		farmtest.Eventually(t, 30*time.Second, func() bool { d, ok := gw.Device(serial); return ok && d.State == broker.StateOnline },
			"%s online", serial)
	}

	// The node's questions to its callers, as the gateway's connection gets them.
	probes := make(chan *nats.Msg, 64)
	sub, err := gwNC.ChanSubscribe(fmt.Sprintf(broker.ProgressT, node, "*"), probes)
	require.NoError(t, err)
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	require.NoError(t, gwNC.Flush())

	holder := broker.Holder{Principal: "agent", Client: "slow-link-test"}
	until := time.Now().Add(3 * broker.LostAfter)
	for round := 1; round <= 3 || time.Now().Before(until); round++ {
		a, err := gw.Acquire(ctx, broker.AcquireRequest{V: broker.WireVersion, Serial: leaseSerial, Holder: holder})
		require.NoError(t, err, "round %d: acquire over the slow link (node log:\n%s)", round, said.String())
		require.True(t, a.OK && a.Lease != nil, "round %d: acquire answered %s %s", round, a.Code, a.Error)
		r, err := gw.Release(ctx, broker.ReleaseRequest{V: broker.WireVersion, Serial: leaseSerial, Handle: a.Lease.Handle})
		require.NoError(t, err, "round %d: release", round)
		require.True(t, r.OK, "round %d: release answered %s %s", round, r.Code, r.Error)

		res, err := gw.Run(ctx, broker.TaskRequest{V: broker.WireVersion, ID: broker.NewTaskID(), Serial: taskSerial, Tool: "tap_xy",
			Args: json.RawMessage(`{"x":0.5,"y":0.5}`), Holder: holder}, nil)
		require.NoError(t, err, "round %d: task over the slow link", round)
		require.Equal(t, broker.OutcomeSucceeded, res.Outcome, "round %d: %s %s", round, res.Code, res.Error)
		for len(probes) > 0 {
			m := <-probes
			require.False(t, strings.Contains(m.Subject, ".c_"), "round %d: the node asked a task's caller whether it still waits (%s)", round, m.Subject)
		}
	}
	require.Empty(t, said.Line("this node was silent for"), "the node took its slow link for a silence")
	require.Empty(t, said.Line("did not come back within"), "the node took its slow link for a silence")
}

// startSlowLink forwards TCP to target, every byte either way arriving delay after it was sent,
// in order, as over a long or slow network path.
func startSlowLink(t *testing.T, target string, delay time.Duration) net.Listener {
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
			wg.Go(func() { delayPipe(out, in, delay) })
			wg.Go(func() { delayPipe(in, out, delay) })
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
	return ln
}

// delayPipe copies src to dst, each chunk written delay after it was read.
func delayPipe(dst, src net.Conn, delay time.Duration) {
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
