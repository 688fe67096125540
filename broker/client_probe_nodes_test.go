package broker

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A client's first call to a node subscribes to that node's probes, with a round trip. While
// that round trip waits (NATS slow, stalled, reconnecting), calls to other nodes go on, and the
// call itself waits no longer than its caller: it then goes without a probe (the node does not
// ask, as for an older client), and the node's next call subscribes.
func TestAFirstSubscriptionToANodesProbesHoldsUpNoOtherNode(t *testing.T) {
	s := openStores(t)
	n1, n2 := startFakeNode(t, s, "n1"), startFakeNode(t, s, "n2")
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateOnline})
	putDevice(t, s, DeviceEntry{Serial: "d2", Node: "n2", State: StateOnline})
	conn, err := nats.Connect(s.JS.Conn().ConnectedUrl())
	require.NoError(t, err)
	t.Cleanup(conn.Close)
	c, err := NewClient(t.Context(), conn, s, ClientOptions{LostAfter: time.Hour})
	require.NoError(t, err)
	require.NoError(t, c.WaitReady(call(t)))

	// n1's first round trip is held until its call's caller leaves.
	held, heldEnded := make(chan struct{}), make(chan struct{})
	var n1Flushes atomic.Int32
	c.probe.flush = func(ctx context.Context, node string) error {
		if node == "n1" && n1Flushes.Add(1) == 1 {
			close(held)
			<-ctx.Done()
			close(heldEnded)
			return ctx.Err()
		}
		return conn.FlushWithContext(ctx)
	}
	run := func(ctx context.Context, serial, id string) chan error {
		done := make(chan error, 1)
		go func() {
			_, err := c.Run(ctx, TaskRequest{V: WireVersion, ID: id, Serial: serial, Tool: holdTool, WaitMS: 5000}, nil)
			done <- err
		}()
		return done
	}
	leaves, leave := context.WithCancel(call(t))
	defer leave()
	first := NewTaskID()
	firstDone := run(leaves, "d1", first)
	select {
	case <-held:
	case err := <-firstDone:
		t.Fatalf("the call to n1 returned before subscribing to n1's probes: %v", err)
	}

	// A call to n2 reaches n2, with a probe, while n1's subscription waits.
	other := NewTaskID()
	otherDone := run(call(t), "d2", other)
	select {
	case m := <-n2.held:
		var req TaskRequest
		require.NoError(t, DecodeTaskRequest(m.Data, &req))
		assert.Equal(t, other, req.ID)
		assert.True(t, ProbeAnswers(req.Probe), "the call to n2 went without a probe: %q", req.Probe)
		answerHeld(t, m, req, "n2")
	case <-heldEnded:
		t.Fatal("the call to n2 was held up until n1's subscription's round trip ended")
	case <-time.After(waitLong):
		t.Fatalf("the call to n2 was held up by n1's subscription's round trip for %s", waitLong)
	}
	require.NoError(t, <-otherDone, "the call to n2")

	// n1's caller leaves: its call returns then, not when the round trip would have given up.
	left := time.Now()
	leave()
	select {
	case <-firstDone:
		assert.Less(t, time.Since(left), probeFlushTimeout/2, "the call to n1 outlived its caller, waiting for its subscription")
	case <-time.After(waitLong):
		t.Fatalf("the call to n1 outlived its caller by %s, waiting for its subscription", waitLong)
	}

	// The next call to n1 subscribes, and goes with a probe; the first, if it was sent, had none.
	next := NewTaskID()
	nextDone := run(call(t), "d1", next)
	for {
		var m *nats.Msg
		select {
		case m = <-n1.held:
		case <-time.After(waitLong):
			t.Fatal("the next call to n1 never reached n1")
		}
		var req TaskRequest
		require.NoError(t, DecodeTaskRequest(m.Data, &req))
		if req.ID == first {
			assert.Empty(t, req.Probe, "a call whose caller left before its node's subscription was made sent a probe")
			continue
		}
		require.Equal(t, next, req.ID)
		assert.True(t, ProbeAnswers(req.Probe), "the next call to n1 went without a probe: %q", req.Probe)
		answerHeld(t, m, req, "n1")
		break
	}
	require.NoError(t, <-nextDone, "the next call to n1")
	assert.EqualValues(t, 2, n1Flushes.Load(), "n1's subscriptions")
}

// answerHeld answers a held task request as node: succeeded.
func answerHeld(t *testing.T, m *nats.Msg, req TaskRequest, node string) {
	t.Helper()
	b, err := json.Marshal(TaskResult{V: WireVersion, ID: req.ID, Serial: req.Serial, Node: node, Tool: req.Tool, Outcome: OutcomeSucceeded})
	require.NoError(t, err)
	require.NoError(t, m.Respond(b))
}
