package broker

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readCounting is the event stream, counting the last-message reads task records are read by,
// with a hook run before each.
type readCounting struct {
	jetstream.Stream
	reads  atomic.Int32
	before func(n int32)
}

func (r *readCounting) GetLastMsgForSubject(ctx context.Context, subject string) (*jetstream.RawStreamMsg, error) {
	n := r.reads.Add(1)
	if r.before != nil {
		r.before(n)
	}
	return r.Stream.GetLastMsgForSubject(ctx, subject)
}

// QA: polling get_task_result cost a flat second per call, the grace TaskRecord gives a record
// just written, for running tasks and unknown ids alike. PollTaskRecord reads an id this client
// had no answer of once, and waits the grace only after the task's answer: its node answers,
// then records.
func TestPollTaskRecordWaitsOnlyAfterAnAnswer(t *testing.T) {
	s := openStores(t)
	events := &readCounting{Stream: s.Events}
	s.Events = events
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateOnline})
	node, err := nats.Connect(s.JS.Conn().ConnectedUrl())
	require.NoError(t, err)
	t.Cleanup(node.Close)
	_, err = node.Subscribe(fmt.Sprintf(NodeGroupT, "n1")+"."+EndpointTask, func(m *nats.Msg) {
		var req TaskRequest
		if DecodeTaskRequest(m.Data, &req) != nil {
			return
		}
		res := TaskResult{V: WireVersion, ID: req.ID, Serial: req.Serial, Node: "n1", Tool: req.Tool, Outcome: OutcomeSucceeded}
		b, _ := res.AppendJSON(nil)
		_ = m.Respond(b) // and no record yet: the test writes it
	})
	require.NoError(t, err)
	require.NoError(t, node.Flush())
	c := startClient(t, s, ClientOptions{LostAfter: time.Hour})

	_, err = c.PollTaskRecord(call(t), "t_never")
	require.ErrorIs(t, err, ErrNotFound)
	assert.LessOrEqual(t, events.reads.Load(), int32(2), "an unknown id read more than once (its stream subject, then the legacy one)")

	id := NewTaskID()
	res, err := c.Run(call(t), TaskRequest{V: WireVersion, ID: id, Serial: "d1", Tool: "tap"}, nil)
	require.NoError(t, err)
	require.Equal(t, OutcomeSucceeded, res.Outcome)
	// The record is written as the poll reads a second time: found only if it waits for it.
	from := events.reads.Load()
	var written atomic.Bool
	events.before = func(n int32) {
		if n > from+2 && written.CompareAndSwap(false, true) {
			rec := TaskResult{V: WireVersion, ID: id, Serial: "d1", Node: "n1", Tool: "tap", Outcome: OutcomeSucceeded, Text: "late"}
			b, _ := rec.AppendJSON(nil)
			_, err := s.JS.Publish(t.Context(), fmt.Sprintf(EventTaskT, "n1", id), b)
			assert.NoError(t, err)
		}
	}
	got, err := c.PollTaskRecord(call(t), id)
	require.NoError(t, err, "the record written just after the answer not waited for")
	assert.Equal(t, "late", got.Text)
}
