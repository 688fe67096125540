package broker

// Tests that kill the mutants gremlins found alive or uncovered in liveness.go, reap.go and
// client.go (scripts/mutate.sh liveness): the registry's order, task progress, the reaper's
// warnings, task records, session defaults and the rule for ids used as keys and subjects.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/logtest"
)

// Devices lists the registry sorted by serial, whatever order the watch delivered it in
// (list_available_devices and `corral devices` show it as it comes).
func TestClientDevicesSortedBySerial(t *testing.T) {
	s := openStores(t)
	serials := []string{"d3", "10.0.0.7:5555", "d1", "R58M", "d2"}
	for _, serial := range serials {
		putDevice(t, s, DeviceEntry{Serial: serial, Node: "n1", State: StateOnline})
	}
	c := startClient(t, s, ClientOptions{LostAfter: time.Hour})
	var got []string
	for _, d := range c.Devices() {
		got = append(got, d.Serial)
	}
	assert.Equal(t, []string{"10.0.0.7:5555", "R58M", "d1", "d2", "d3"}, got)
}

// A caller's progress callback gets the node's progress reports of its task (unreadable ones
// skipped) while the call runs, and the client stops listening when the call ends.
func TestClientRunDeliversProgress(t *testing.T) {
	s := openStores(t)
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateOnline})

	// n1 sends three progress reports (the first one garbled), then answers at once, on one
	// connection, as package nodes does: Run hands both readable ones over before it returns.
	nodeConn, err := nats.Connect(s.JS.Conn().ConnectedUrl())
	require.NoError(t, err)
	defer nodeConn.Close()
	_, err = nodeConn.Subscribe(fmt.Sprintf(NodeGroupT, "n1")+"."+EndpointTask, func(m *nats.Msg) {
		var req TaskRequest
		_ = json.Unmarshal(m.Data, &req)
		if req.Tool == "install" {
			subject := fmt.Sprintf(ProgressT, "n1", req.ID)
			_ = nodeConn.Publish(subject, []byte("not json"))
			for i := 1; i <= 2; i++ {
				b, _ := json.Marshal(Progress{TaskID: req.ID, Progress: float64(i), Total: 2, Message: fmt.Sprintf("step %d", i)})
				_ = nodeConn.Publish(subject, b)
			}
		}
		b, _ := json.Marshal(TaskResult{V: WireVersion, ID: req.ID, Serial: req.Serial, Node: "n1", Tool: req.Tool, Outcome: OutcomeSucceeded})
		_ = m.Respond(b)
	})
	require.NoError(t, err)
	require.NoError(t, nodeConn.Flush())

	// The client on a connection of its own, so its subscriptions can be counted.
	clientConn, err := nats.Connect(s.JS.Conn().ConnectedUrl())
	require.NoError(t, err)
	defer clientConn.Close()
	// A loaded machine's scheduler is no failure: the hand-over may take long, not be skipped.
	c, err := NewClient(t.Context(), clientConn, s, ClientOptions{LostAfter: time.Hour, ProgressHandOver: time.Minute})
	require.NoError(t, err)
	require.NoError(t, c.WaitReady(call(t)))
	// A first call without progress (the connection's first request also subscribes, once,
	// to the replies of all its requests).
	res, err := c.Run(call(t), TaskRequest{V: WireVersion, ID: NewTaskID(), Serial: "d1", Tool: "tap_xy"}, nil)
	require.NoError(t, err)
	require.Equal(t, OutcomeSucceeded, res.Outcome)
	subs := clientConn.NumSubscriptions()

	var mu sync.Mutex
	var got []Progress
	id := NewTaskID()
	res, err = c.Run(call(t), TaskRequest{V: WireVersion, ID: id, Serial: "d1", Tool: "install"}, func(p Progress) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, p)
	})
	require.NoError(t, err)
	assert.Equal(t, OutcomeSucceeded, res.Outcome)
	mu.Lock()
	assert.Equal(t, []Progress{{TaskID: id, Progress: 1, Total: 2, Message: "step 1"}, {TaskID: id, Progress: 2, Total: 2, Message: "step 2"}}, got)
	mu.Unlock()
	assert.Equal(t, subs, clientConn.NumSubscriptions(), "the progress subscription outlived the call")
}

// The reaper warns when it cannot record a device going offline or the node's loss (the
// event stream is gone), and only then: a reap that recorded everything logs no warning.
func TestReapWarnsOnlyWhenRecordingFails(t *testing.T) {
	s := openStores(t)
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateOnline, Epoch: 2})
	logs := &logtest.Buffer{}
	c := startClient(t, s, ClientOptions{Reap: true, LostAfter: time.Hour,
		Log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})

	c.nodeLost("n1", "boot-a")
	d, _ := getDevice(t, s, "d1")
	require.Equal(t, StateOffline, d.State)
	require.EqualValues(t, 1, events(t, s, devOffline("n1", "d1")))
	assert.NotContains(t, logs.String(), "could not record", "a warning though the reap was recorded")

	// The event stream is gone; n1 comes back, then is lost again.
	require.NoError(t, s.JS.DeleteStream(t.Context(), EventStream))
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateOnline, Epoch: 2})
	waitCached(t, c, "d1", StateOnline)
	c.nodeLost("n1", "boot-b")
	d, _ = getDevice(t, s, "d1")
	assert.Equal(t, StateOffline, d.State, "reaped though nothing could be recorded")
	out := logs.String()
	assert.Contains(t, out, `msg="could not record a device going offline" serial=d1`)
	assert.Contains(t, out, `msg="could not record node loss" node=n1`)
}

// TaskRecord reads a task's record from the event stream, waiting recordGrace for one just
// written; it refuses ids that are not one subject token (a wildcard would read another task's
// record), says not found after the grace, and reports a record it cannot read.
func TestClientTaskRecord(t *testing.T) {
	s := openStores(t)
	c := startClient(t, s, ClientOptions{LostAfter: time.Hour})
	publish := func(id string, data []byte) {
		t.Helper()
		_, err := s.JS.Publish(t.Context(), fmt.Sprintf(EventTaskT, "n1", id), data)
		require.NoError(t, err)
	}
	rec := TaskResult{V: WireVersion, ID: "t_done", Serial: "d1", Node: "n1", Tool: "tap_xy", Outcome: OutcomeSucceeded, Text: "ok"}
	b, err := json.Marshal(rec)
	require.NoError(t, err)
	publish(rec.ID, b)
	got, err := c.TaskRecord(call(t), "t_done")
	require.NoError(t, err)
	assert.Equal(t, rec, got)

	for _, id := range []string{"", "*", ">", "t_done.>", "t done", strings.Repeat("t", 201)} {
		_, err := c.TaskRecord(call(t), id)
		assert.ErrorContains(t, err, "is not valid", "%q", id)
	}

	start := time.Now()
	_, err = c.TaskRecord(call(t), "t_never")
	require.ErrorIs(t, err, ErrNotFound)
	assert.GreaterOrEqual(t, time.Since(start), recordGrace, "not found before the grace for a record just written")

	// A record written during the grace is found.
	later := make(chan error, 1)
	go func() {
		r, err := c.TaskRecord(call(t), "t_late")
		if err == nil && r.ID != "t_late" {
			err = fmt.Errorf("record of %q", r.ID)
		}
		later <- err
	}()
	b, _ = json.Marshal(TaskResult{V: WireVersion, ID: "t_late", Node: "n1", Outcome: OutcomeFailed})
	publish("t_late", b)
	select {
	case err := <-later:
		assert.NoError(t, err)
	case <-time.After(waitLong):
		t.Fatal("TaskRecord did not return")
	}

	publish("t_garbled", []byte("{not json"))
	_, err = c.TaskRecord(call(t), "t_garbled")
	assert.ErrorContains(t, err, "task t_garbled: record unreadable")

	// The caller gives up during the grace.
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err = c.TaskRecord(ctx, "t_never")
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// A session's selected device round-trips through KV; an unknown session, an unreadable entry
// and an id that cannot be a key have none, and such an id cannot be set.
func TestClientSessionDevice(t *testing.T) {
	s := openStores(t)
	c := startClient(t, s, ClientOptions{LostAfter: time.Hour})
	want := SessionDefault{Serial: "10.0.0.7:5555", Platform: "android", Lease: "lease_x"}
	set := func(session string) error {
		return c.UpdateSessionDevice(call(t), session, func(d *SessionDefault) bool { *d = want; return true })
	}
	require.NoError(t, set("mcp-session-1"))
	got, ok := c.SessionDevice(call(t), "mcp-session-1")
	require.True(t, ok)
	assert.Equal(t, want, got)

	_, ok = c.SessionDevice(call(t), "mcp-session-2")
	assert.False(t, ok, "a session never set has a device")
	_, err := s.Sessions.Put(t.Context(), "mcp-session-3", []byte("{garbled"))
	require.NoError(t, err)
	_, ok = c.SessionDevice(call(t), "mcp-session-3")
	assert.False(t, ok, "an unreadable entry read as a device")

	assert.ErrorContains(t, set("a.b"), "cannot be a key")
	_, ok = c.SessionDevice(call(t), "mcp-session-1.>")
	assert.False(t, ok)
}

// An id used as a subject token or KV key has 1 to 200 letters, digits, '-', '_' or '=':
// nothing a subject gives meaning to ('.', '*', '>', spaces).
func TestValidToken(t *testing.T) {
	for _, s := range []string{"a", "z", "A", "Z", "0", "9", "-", "_", "=", "t_01HX-ab=Z9", strings.Repeat("x", 200)} {
		assert.True(t, validToken(s), "%q refused", s)
	}
	for _, s := range []string{"", strings.Repeat("x", 201), "`", "{", "@", "[", "/", ":", ".", "*", ">", " ", "a.b", "a b", "é", "t\n"} {
		assert.False(t, validToken(s), "%q accepted", s)
	}
}
