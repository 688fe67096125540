package nodes_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/tcplink"
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
		link := tcplink.Forward(t, server, tcplink.Delay(tcplink.Fixed(300*time.Millisecond)))
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
