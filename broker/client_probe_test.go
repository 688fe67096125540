package broker

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every task a client sends names its connection's probe (one token, one subscription, for all
// its tasks), where its nodes ask whether it is still there: someone gets their request while
// the connection lives, no one once it is closed. A probe is not taken for an answer.
func TestClientTasksNameAProbeThatLivesWithItsConnection(t *testing.T) {
	n1, conn, c := probedClient(t)

	var probes []string
	for range 2 {
		id := NewTaskID()
		done := make(chan error, 1)
		go func() {
			res, err := c.Run(call(t), TaskRequest{V: WireVersion, ID: id, Serial: "d1", Tool: holdTool, WaitMS: 5000}, nil)
			if err == nil && res.Outcome != OutcomeSucceeded {
				err = fmt.Errorf("outcome %s", res.Outcome)
			}
			done <- err
		}()
		held := <-n1.held
		var req TaskRequest
		require.NoError(t, DecodeTaskRequest(held.Data, &req))
		require.True(t, ProbeAnswers(req.Probe) && validToken(req.Probe), "probe %q", req.Probe)
		probes = append(probes, req.Probe)
		assert.True(t, listened(t, n1.nc, fmt.Sprintf(ProgressT, "n1", req.Probe)), "no one listens on the probe while the call waits")
		b, _ := json.Marshal(TaskResult{V: WireVersion, ID: id, Serial: "d1", Node: "n1", Tool: holdTool, Outcome: OutcomeSucceeded})
		require.NoError(t, held.Respond(b))
		require.NoError(t, <-done, "the call's answer")
	}
	assert.Equal(t, probes[0], probes[1], "one probe per connection")
	subject := fmt.Sprintf(ProgressT, "n1", probes[0])
	assert.True(t, listened(t, n1.nc, subject), "the probe ended with a call")

	conn.Close()
	require.Eventually(t, func() bool { return !listened(t, n1.nc, subject) }, waitLong, 10*time.Millisecond,
		"someone listens on the probe of a closed connection")
}

// listened says whether a request to subject reaches a subscriber, as a node asks (nodes'
// noListener): no responders comes back before the answer to the flush's PING, or not at all.
func listened(t *testing.T, nc *nats.Conn, subject string) bool {
	t.Helper()
	statuses := make(chan *nats.Msg, 1)
	sub, err := nc.ChanSubscribe(nc.NewInbox(), statuses)
	require.NoError(t, err)
	defer func() { _ = sub.Unsubscribe() }()
	require.NoError(t, nc.PublishRequest(subject, sub.Subject, nil))
	require.NoError(t, nc.Flush())
	select {
	case m := <-statuses:
		return m.Header.Get("Status") != "503"
	default:
		return true
	}
}

// A client answers a node's probe per call: waiting while the call's caller waits, gone from
// the moment its context ends (before its abort is even sent) and once it returned, gone for
// a task it never sent. Only a probe naming the task and the asking node's answer subject is
// answered: an older node's probe (its inbox, no task) is only listened on.
func TestClientAnswersEachCallsProbe(t *testing.T) {
	n1, _, c := probedClient(t)

	type held struct {
		req    TaskRequest
		msg    *nats.Msg
		cancel context.CancelFunc
		done   chan error
	}
	send := func() held {
		ctx, cancel := context.WithCancel(call(t))
		h := held{cancel: cancel, done: make(chan error, 1)}
		go func() {
			_, err := c.Run(ctx, TaskRequest{V: WireVersion, ID: NewTaskID(), Serial: "d1", Tool: holdTool, WaitMS: 5000}, nil)
			h.done <- err
		}()
		h.msg = <-n1.held
		require.NoError(t, DecodeTaskRequest(h.msg.Data, &h.req))
		require.True(t, ProbeAnswers(h.req.Probe), "probe %q", h.req.Probe)
		return h
	}
	left, stays := send(), send()
	probe := fmt.Sprintf(ProgressT, "n1", left.req.Probe)
	assert.Equal(t, string(CallerWaits), askCall(t, n1.nc, probe, "n1", left.req.ID), "a call that waits")
	left.cancel()
	assert.Equal(t, string(CallerLeft), askCall(t, n1.nc, probe, "n1", left.req.ID), "a call whose caller just left")
	require.Error(t, <-left.done)
	assert.Equal(t, string(CallerLeft), askCall(t, n1.nc, probe, "n1", left.req.ID), "a call that returned")
	assert.Equal(t, string(CallerLeft), askCall(t, n1.nc, probe, "n1", NewTaskID()), "a task never sent")

	// An older node's probe (no task, its inbox) gets no answer; the client answers in order,
	// so the next probe's answer would come second.
	inbox := make(chan *nats.Msg, 4)
	sub, err := n1.nc.ChanSubscribe(n1.nc.NewInbox(), inbox)
	require.NoError(t, err)
	require.NoError(t, n1.nc.PublishRequest(probe, sub.Subject, nil))
	require.NoError(t, n1.nc.PublishRequest(probe, sub.Subject, []byte(stays.req.ID)))
	assert.Equal(t, string(CallerWaits), askCall(t, n1.nc, probe, "n1", stays.req.ID), "a call that waits, asked after an older node's probe")
	assert.Empty(t, inbox, "a probe without the asking node's answer subject was answered")

	b, _ := json.Marshal(TaskResult{V: WireVersion, ID: stays.req.ID, Serial: "d1", Node: "n1", Tool: holdTool, Outcome: OutcomeSucceeded})
	require.NoError(t, stays.msg.Respond(b))
	require.NoError(t, <-stays.done)
	assert.Equal(t, string(CallerLeft), askCall(t, n1.nc, probe, "n1", stays.req.ID), "a call answered")
}

// askCall asks as a node does (nodes' callEnded): the task id to the probe, the answer on the
// node's subject for it.
func askCall(t *testing.T, nc *nats.Conn, probe, node, id string) string {
	t.Helper()
	answers := make(chan *nats.Msg, 1)
	sub, err := nc.ChanSubscribe(CallerAnswerSubject(node, id), answers)
	require.NoError(t, err)
	defer func() { _ = sub.Unsubscribe() }()
	require.NoError(t, nc.PublishRequest(probe, sub.Subject, []byte(id)))
	select {
	case m := <-answers:
		return string(m.Data)
	case <-time.After(waitLong):
		t.Fatalf("no answer to a probe of %s", id)
		return ""
	}
}

// probedClient is a client on a connection of its own (closed at the test's end, or before by
// the test), device d1 on fake node n1.
func probedClient(t *testing.T) (*fakeNode, *nats.Conn, *Client) {
	t.Helper()
	s := openStores(t)
	n1 := startFakeNode(t, s, "n1")
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateOnline})
	conn, err := nats.Connect(s.JS.Conn().ConnectedUrl())
	require.NoError(t, err)
	t.Cleanup(conn.Close)
	c, err := NewClient(t.Context(), conn, s, ClientOptions{LostAfter: time.Hour})
	require.NoError(t, err)
	require.NoError(t, c.WaitReady(call(t)))
	return n1, conn, c
}
