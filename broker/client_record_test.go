package broker

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
)

// testRecordAfter is the RecordAfter of the tests whose calls wait for a record.
const testRecordAfter = 300 * time.Millisecond

// lateNode plays a node whose answers the test sends, or not: a fakeNode whose tasks are all of
// holdTool, which records results in the event stream as package nodes does.
type lateNode struct {
	*fakeNode
	js jetstream.JetStream
}

func startLateNode(t *testing.T, s *Stores, name string) *lateNode {
	t.Helper()
	n := startFakeNode(t, s, name)
	js, err := jetstream.New(n.nc)
	require.NoError(t, err)
	return &lateNode{fakeNode: n, js: js}
}

// take waits for the node's next task request.
func (n *lateNode) take() (*nats.Msg, TaskRequest) {
	n.t.Helper()
	select {
	case m := <-n.held:
		var req TaskRequest
		require.NoError(n.t, DecodeTaskRequest(m.Data, &req))
		return m, req
	case <-time.After(waitLong):
		n.t.Fatal("no task reached the node")
		return nil, TaskRequest{}
	}
}

// result is the node's result of req: with an image and a secret, which its record drops.
func (n *lateNode) result(req TaskRequest) TaskResult {
	now := time.Now()
	return TaskResult{V: WireVersion, ID: req.ID, Serial: req.Serial, Node: n.name, Tool: req.Tool, Outcome: OutcomeSucceeded,
		Data: json.RawMessage(`{"typed":"hunter2"}`), Text: "typed hunter2", Image: []byte("jpeg"), ImageType: "image/jpeg",
		Submitted: now.Add(-time.Second), Started: now.Add(-time.Second), Finished: now, Secrets: []string{"hunter2"}}
}

// record writes res's record on the node's subject, encoded as package nodes encodes it.
func (n *lateNode) record(res TaskResult) {
	n.t.Helper()
	rec := res.Record()
	b, err := rec.AppendJSON(nil)
	require.NoError(n.t, err)
	_, err = n.js.Publish(n.t.Context(), fmt.Sprintf(EventTaskT, n.name, res.ID), b)
	require.NoError(n.t, err)
}

// answer replies to the task request m with res.
func (n *lateNode) answer(m *nats.Msg, res TaskResult) {
	n.t.Helper()
	b, err := res.AppendJSON(nil)
	require.NoError(n.t, err)
	require.NoError(n.t, m.Respond(b))
}

// recordClient starts a client on s that logs to the returned log, with a node n1 serving d1.
func recordClient(t *testing.T, s *Stores, opts ClientOptions) (*Client, *logtest.Buffer) {
	t.Helper()
	log := &logtest.Buffer{}
	opts.Log = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if opts.LostAfter == 0 {
		opts.LostAfter = testLostAfter
	}
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateOnline})
	c := startClient(t, s, opts)
	require.Eventually(t, func() bool { return c.live.Lost("n1").Err() == nil }, waitLong, 10*time.Millisecond, "n1 alive to the client")
	return c, log
}

// safetyNet bounds a call that should end by itself, later than wait gives up on it: a call
// that hangs fails the test as hanging, not as cut off.
func safetyNet(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 2*waitLong)
	t.Cleanup(cancel)
	return ctx
}

// runAsync runs a task of d1 and returns where its result comes.
func runAsync(ctx context.Context, c *Client, id string) <-chan runDone {
	done := make(chan runDone, 1)
	go func() {
		res, err := c.Run(ctx, TaskRequest{V: WireVersion, ID: id, Serial: "d1", Tool: holdTool}, nil)
		done <- runDone{res, err}
	}()
	return done
}

type runDone struct {
	res TaskResult
	err error
}

func wait(t *testing.T, done <-chan runDone) runDone {
	t.Helper()
	select {
	case d := <-done:
		return d
	case <-time.After(waitLong):
		t.Fatal("Run still waits: the node's lost answer left the call hanging")
		return runDone{}
	}
}

// lookedFor says whether the client began looking for the record of task id.
func lookedFor(log *logtest.Buffer, id string) bool { return lookLine(log, id) != "" }

// lookLine is the line that says the client began looking for the record of task id.
func lookLine(log *logtest.Buffer, id string) string {
	for l := range strings.Lines(log.String()) {
		if strings.Contains(l, "looking for its record too") && strings.Contains(l, " task="+id+" ") {
			return l
		}
	}
	return ""
}

// assertFromRecord checks that got is want's record, not the node's answer.
func assertFromRecord(t *testing.T, want, got TaskResult) {
	t.Helper()
	rec := want.Record()
	assert.Equal(t, rec.ID, got.ID)
	assert.Equal(t, rec.Node, got.Node)
	assert.Equal(t, rec.Serial, got.Serial)
	assert.Equal(t, rec.Tool, got.Tool)
	assert.Equal(t, OutcomeSucceeded, got.Outcome)
	assert.Equal(t, "typed "+Redacted, got.Text)
	assert.JSONEq(t, `{"typed":"`+Redacted+`"}`, string(got.Data))
	assert.Nil(t, got.Image, "a record carries no image")
	assert.True(t, rec.Finished.Equal(got.Finished))
}

// A node that records its task but whose answer never comes (lost on the way): Run answers
// from the record soon after RecordAfter, whether the record was there when it began to look
// or came while it looked, and warns once that the answer was lost.
func TestRunAnswersFromTheRecordOfALostAnswer(t *testing.T) {
	for _, when := range []string{"recorded at once", "recorded while the client looks"} {
		t.Run(when, func(t *testing.T) {
			s := openStores(t)
			n1 := startLateNode(t, s, "n1")
			c, log := recordClient(t, s, ClientOptions{RecordAfter: testRecordAfter})

			id, start := NewTaskID(), time.Now()
			done := runAsync(safetyNet(t), c, id)
			_, req := n1.take()
			res := n1.result(req)
			if when != "recorded at once" {
				require.Eventually(t, func() bool { return lookedFor(log, id) }, waitLong, 5*time.Millisecond, "the client looks for the record")
			}
			n1.record(res) // and never answers

			d := wait(t, done)
			require.NoError(t, d.err)
			assertFromRecord(t, res, d.res)
			took := time.Since(start)
			assert.GreaterOrEqual(t, took, testRecordAfter, "the answer alone is waited for RecordAfter")
			if when != "recorded at once" {
				// Not the poll's reading again: the subscription brought the record.
				assert.Less(t, took, recordPoll, "the record written while the client looked came by its subscription")
			}
			assert.Equal(t, 1, strings.Count(log.String(), "answered from the task's record"), log.String())
		})
	}
}

// Calls in flight together each wait their own RecordAfter: a call sent later than another
// does not look for its record when the earlier one's time comes, whether the earlier one
// returned by then or not.
func TestRunEachCallWaitsItsOwnRecordAfter(t *testing.T) {
	s := openStores(t)
	n1 := startLateNode(t, s, "n1")
	c, log := recordClient(t, s, ClientOptions{RecordAfter: testRecordAfter})

	first, start := NewTaskID(), time.Now()
	firstDone := runAsync(safetyNet(t), c, first)
	m, req := n1.take()
	// The second call is sent half a RecordAfter after the first.
	require.Eventually(t, func() bool { return time.Since(start) >= testRecordAfter/2 }, waitLong, time.Millisecond)
	second := NewTaskID()
	secondDone := runAsync(safetyNet(t), c, second)
	_, req2 := n1.take()
	n1.answer(m, n1.result(req))
	require.NoError(t, wait(t, firstDone).err)
	res2 := n1.result(req2)
	n1.record(res2)

	d := wait(t, secondDone)
	require.NoError(t, d.err)
	assertFromRecord(t, res2, d.res)
	line := lookLine(log, second)
	require.NotEmpty(t, line, log.String())
	_, waited, _ := strings.Cut(line, " waited=")
	waited, _, _ = strings.Cut(waited, " ")
	took, err := time.ParseDuration(waited)
	require.NoError(t, err, line)
	assert.GreaterOrEqual(t, took, testRecordAfter, "the second call looked for its record before its own RecordAfter: %s", line)
}

// The usual call, answered before RecordAfter, never looks for its record: no read of the
// event stream, no subscription. (A later call that does, past RecordAfter, shows that the
// first call's RecordAfter has passed too, and that this test sees lookups.)
func TestRunAnsweredInTimeReadsNoRecord(t *testing.T) {
	s := openStores(t)
	n1 := startLateNode(t, s, "n1")
	c, log := recordClient(t, s, ClientOptions{RecordAfter: testRecordAfter})
	// Every JetStream API request and subscription on the connection, seen from outside.
	mon, err := nats.Connect(s.JS.Conn().ConnectedUrl())
	require.NoError(t, err)
	t.Cleanup(mon.Close)
	var mu sync.Mutex
	var api []string
	_, err = mon.Subscribe("$JS.API.>", func(m *nats.Msg) {
		mu.Lock()
		defer mu.Unlock()
		api = append(api, m.Subject+" "+string(m.Data))
	})
	require.NoError(t, err)
	require.NoError(t, mon.Flush())
	asked := func(id string) int {
		mu.Lock()
		defer mu.Unlock()
		k := 0
		for _, a := range api {
			if strings.Contains(a, id) {
				k++
			}
		}
		return k
	}

	fast := NewTaskID()
	done := runAsync(safetyNet(t), c, fast)
	m, req := n1.take()
	res := n1.result(req)
	n1.answer(m, res)
	n1.record(res)
	d := wait(t, done)
	require.NoError(t, d.err)
	assert.Equal(t, []byte("jpeg"), d.res.Image, "the node's answer, not its record")
	assert.Equal(t, "typed hunter2", d.res.Text)

	slow := NewTaskID()
	done = runAsync(safetyNet(t), c, slow)
	_, req = n1.take()
	n1.record(n1.result(req))
	require.NoError(t, wait(t, done).err)
	require.Eventually(t, func() bool { return asked(slow) > 0 }, waitLong, 5*time.Millisecond, "the slow call's read is seen")

	assert.Zero(t, asked(fast), "the call answered in time read its record")
	assert.False(t, lookedFor(log, fast), "the call answered in time looked for its record:\n%s", log.String())
	assert.Equal(t, 1, strings.Count(log.String(), "answered from the task's record"), log.String())
}

// An answer that comes while the client looks, once the record is there, is the one the
// caller gets: the record lacks the image and has the secrets redacted.
func TestRunPrefersAnAnswerThatComesInTheGrace(t *testing.T) {
	s := openStores(t)
	n1 := startLateNode(t, s, "n1")
	c, log := recordClient(t, s, ClientOptions{RecordAfter: testRecordAfter})

	id := NewTaskID()
	done := runAsync(safetyNet(t), c, id)
	m, req := n1.take()
	res := n1.result(req)
	n1.record(res)
	require.Eventually(t, func() bool { return lookedFor(log, id) }, waitLong, 5*time.Millisecond, "the client looks for the record")
	n1.answer(m, res)

	d := wait(t, done)
	require.NoError(t, d.err)
	assert.Equal(t, []byte("jpeg"), d.res.Image, "the node's answer, not its record")
	assert.NotContains(t, log.String(), "answered from the task's record")
}

// A caller that goes away while the client looks for the record (none yet: the task runs)
// gets what it got before: its context's error, and the task aborted on its node.
func TestRunCancelledWhileLookingForTheRecord(t *testing.T) {
	s := openStores(t)
	n1 := startLateNode(t, s, "n1")
	c, log := recordClient(t, s, ClientOptions{RecordAfter: testRecordAfter})

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	id := NewTaskID()
	done := runAsync(ctx, c, id)
	n1.take()
	require.Eventually(t, func() bool { return lookedFor(log, id) }, waitLong, 5*time.Millisecond, "the client looks for the record")
	cancel()
	select {
	case ab := <-n1.aborts:
		assert.Equal(t, "d1", ab.Serial)
		assert.Equal(t, id, ab.TaskID)
	case <-time.After(waitLong):
		t.Fatal("the cancelled task was not aborted on its node")
	}
	d := wait(t, done)
	assert.ErrorIs(t, d.err, context.Canceled)
	assert.Empty(t, d.res.Outcome)
	assert.NotContains(t, log.String(), "answered from the task's record")
}

// The defect's own case: the client's NATS connection drops while a task runs, the node
// answers meanwhile (lost: the client is not connected), and the connection comes back. The
// call does not wait for RecordAfter (an hour here): the reconnection sends it to the record.
func TestRunAfterAReconnectionAnswersFromTheRecord(t *testing.T) {
	s := openStores(t)
	url := s.JS.Conn().ConnectedUrl()
	n1 := startLateNode(t, s, "n1")
	p := startCutProxy(t, strings.TrimPrefix(url, "nats://"))
	gnc, err := nats.Connect("nats://"+p.addr(), nats.ReconnectWait(20*time.Millisecond), nats.ReconnectJitter(0, 0),
		nats.MaxReconnects(-1), nats.IgnoreDiscoveredServers())
	require.NoError(t, err)
	t.Cleanup(gnc.Close)
	gs, err := EnsureStores(t.Context(), gnc, StoreOptions{})
	require.NoError(t, err)
	// Liveness long enough that the disconnection loses no node.
	c, log := recordClient(t, gs, ClientOptions{RecordAfter: time.Hour, LostAfter: time.Minute})

	id := NewTaskID()
	done := runAsync(safetyNet(t), c, id)
	m, req := n1.take()
	p.cut()
	require.Eventually(t, func() bool { return !gnc.IsConnected() }, waitLong, 5*time.Millisecond, "the client's connection drops")
	res := n1.result(req)
	n1.record(res)
	n1.answer(m, res) // lost
	require.NoError(t, n1.nc.Flush())
	p.resume()

	d := wait(t, done)
	require.NoError(t, d.err)
	assertFromRecord(t, res, d.res)
	assert.Equal(t, 1, strings.Count(log.String(), "answered from the task's record"), log.String())
}

// cutProxy is a TCP proxy to a NATS server whose connections the test cuts, refusing new ones
// until it resumes: one client loses its connection while the server and others go on.
type cutProxy struct {
	t      *testing.T
	ln     net.Listener
	target string
	paused atomic.Bool
	mu     sync.Mutex
	conns  []net.Conn
}

func startCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &cutProxy{t: t, ln: ln, target: target}
	t.Cleanup(func() { _ = ln.Close(); p.cut() })
	go p.serve()
	return p
}

func (p *cutProxy) addr() string { return p.ln.Addr().String() }

func (p *cutProxy) serve() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		if p.paused.Load() {
			_ = in.Close()
			continue
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = in.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, in, out)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(out, in); _ = out.Close() }()
		go func() { _, _ = io.Copy(in, out); _ = in.Close() }()
	}
}

// cut closes every connection and refuses new ones until resume.
func (p *cutProxy) cut() {
	p.paused.Store(true)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
}

func (p *cutProxy) resume() { p.paused.Store(false) }

// BenchmarkClientRun is one task call answered at once: the hot path awaitTask keeps cheap.
func BenchmarkClientRun(b *testing.B) {
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: b.TempDir()}, slog.New(slog.DiscardHandler))
	require.NoError(b, err)
	b.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := nats.Connect(ns.ClientURL())
	require.NoError(b, err)
	b.Cleanup(nc.Close)
	s, err := EnsureStores(b.Context(), nc, StoreOptions{})
	require.NoError(b, err)
	node, err := nats.Connect(ns.ClientURL())
	require.NoError(b, err)
	b.Cleanup(node.Close)
	_, err = node.Subscribe(fmt.Sprintf(NodeGroupT, "n1")+"."+EndpointTask, func(m *nats.Msg) {
		var req TaskRequest
		_ = DecodeTaskRequest(m.Data, &req)
		res := TaskResult{V: WireVersion, ID: req.ID, Serial: req.Serial, Node: "n1", Tool: req.Tool, Outcome: OutcomeSucceeded}
		data, _ := res.AppendJSON(nil)
		_ = m.Respond(data)
	})
	require.NoError(b, err)
	hb, _ := json.Marshal(Heartbeat{V: WireVersion, Node: "n1", Boot: "boot-1", Sent: time.Now()})
	entry, _ := json.Marshal(DeviceEntry{V: WireVersion, Platform: "android", Serial: "d1", Node: "n1", State: StateOnline, Updated: time.Now()})
	_, err = s.Registry.Put(b.Context(), RegistryKey("n1", "d1"), entry)
	require.NoError(b, err)
	c, err := NewClient(b.Context(), nc, s, ClientOptions{LostAfter: time.Hour})
	require.NoError(b, err)
	require.Eventually(b, func() bool {
		_ = node.Publish(fmt.Sprintf(HeartbeatT, "n1"), hb)
		_, ok := c.Device("d1")
		return ok && c.live.Lost("n1").Err() == nil
	}, waitLong, 10*time.Millisecond)
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Run(ctx, TaskRequest{V: WireVersion, ID: NewTaskID(), Serial: "d1", Tool: "tap"}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
