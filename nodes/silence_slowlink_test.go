package nodes_test

import (
	"encoding/json"
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// Review of the silence check: a node whose round trip to NATS takes longer than a heartbeat
// interval (a distant node, a slow link) is not silent: its heartbeats reach the farm a moment
// late and the farm does not declare it lost. Each of its round trips was given a heartbeat
// interval and failed, so two seconds on every lease request was refused node_lost and every
// task asked its caller first, with nothing logged. Here the node's link adds 300 ms each way:
// for three times LostAfter it grants leases and runs tasks with no question to their callers,
// and says nothing of a silence.
func TestSlowLinkIsNoSilence(t *testing.T) {
	const taskSerial, leaseSerial = "n1-task", "n1-lease"
	rig := startSilenceRig(t, func(server string) string {
		link := startSlowLink(t, server, 300*time.Millisecond)
		nc, err := nats.Connect("nats://" + link)
		require.NoError(t, err)
		defer nc.Close()
		started := time.Now()
		require.NoError(t, nc.Flush())
		require.GreaterOrEqual(t, time.Since(started), 600*time.Millisecond, "the link adds no delay")
		return link
	}, taskSerial, leaseSerial)
	ctx, gw, said := rig.ctx, rig.gw, rig.said

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
		require.Zero(t, rig.callersAsked(), "round %d: the node asked a task's caller whether it still waits", round)
	}
	require.Empty(t, said.Line("this node was silent for"), "the node took its slow link for a silence")
	require.Empty(t, said.Line("did not come back within"), "the node took its slow link for a silence")
}

// startSlowLink forwards TCP to target, every byte either way arriving delay after it was sent,
// in order, as over a long or slow network path; it returns the address to dial.
func startSlowLink(t *testing.T, target string, delay time.Duration) string {
	t.Helper()
	return farmtest.Forward(t, target, func(dst, src net.Conn) { delayPipe(dst, src, delay) })
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
