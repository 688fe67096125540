package vision

import (
	"sync/atomic"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests stand a worker in with a plain subscriber where a real one cannot do what is
// tested: a hung worker is exactly one that is subscribed and answers nothing.

func testConn(t *testing.T) func() *nats.Conn {
	t.Helper()
	ns, err := natsserver.NewServer(&natsserver.Options{Port: -1})
	require.NoError(t, err)
	go ns.Start()
	require.True(t, ns.ReadyForConnections(5*time.Second), "the NATS server did not start")
	t.Cleanup(ns.Shutdown)
	return func() *nats.Conn {
		nc, err := nats.Connect(ns.ClientURL())
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		return nc
	}
}

// liveWorker answers the ping and diffs as worker id, at once (so it holds no call when asked);
// direct counts the diffs sent to its own subject.
func liveWorker(t *testing.T, nc *nats.Conn, id string, direct *atomic.Int32) {
	t.Helper()
	_, err := nc.Subscribe(PingSubject, func(m *nats.Msg) { _ = m.Respond([]byte(`{"id":"` + id + `"}`)) })
	require.NoError(t, err)
	_, err = nc.QueueSubscribe(DirectSubject(id, EndpointHolds), QueueGroup, func(m *nats.Msg) { _ = m.Respond([]byte(`{"v":1,"holds":false}`)) })
	require.NoError(t, err)
	answer := func(m *nats.Msg) {
		out := nats.NewMsg(m.Reply)
		out.Header.Set(WorkerHeader, id)
		out.Data = []byte(`{"v":1}`)
		_ = nc.PublishMsg(out)
	}
	_, err = nc.QueueSubscribe(Prefix+"."+EndpointDiff, QueueGroup, answer)
	require.NoError(t, err)
	_, err = nc.QueueSubscribe(DirectSubject(id, EndpointDiff), QueueGroup, func(m *nats.Msg) {
		direct.Add(1)
		answer(m)
	})
	require.NoError(t, err)
	require.NoError(t, nc.Flush())
}

// QA R: a worker the client never heard from (it hung before the client's first ping) costs a
// call it takes two hung checks, not the attempt: the request goes to the worker that answers.
func TestCallTakenByAWorkerTheClientNeverHeardFromMovesToALiveOne(t *testing.T) {
	conn := testConn(t)
	var direct atomic.Int32
	liveWorker(t, conn(), "A", &direct)
	hung := conn()
	_, err := hung.QueueSubscribe(Prefix+"."+EndpointDiff, QueueGroup, func(*nats.Msg) {})
	require.NoError(t, err)
	require.NoError(t, hung.Flush())

	const attempt = 20 * time.Second
	c := NewClient(conn(), attempt)
	require.NoError(t, c.Ping(t.Context()))
	// The queue group hands each request to either: go on until the hung one has taken one.
	for try := 0; direct.Load() == 0; try++ {
		require.Less(t, try, 30, "the queue group never handed the hung worker a request")
		began := time.Now()
		_, err := c.Diff(t.Context(), DiffRequest{V: WireVersion})
		require.NoError(t, err)
		took := time.Since(began)
		t.Logf("call %d: %s", try+1, took.Round(100*time.Millisecond))
		// 2 hung checks (6 s) and a ping that A answers at once; generous for a loaded machine.
		require.Less(t, took, 12*time.Second, "call %d waited on the hung worker, not two hung checks", try+1)
	}
}

// A call whose answer came while the workers' ping went unanswered is answered, not
// vision_unavailable.
func TestAnswerThatCameDuringAnUnansweredPingCounts(t *testing.T) {
	conn := testConn(t)
	nc := conn()
	pinged := make(chan struct{}, 1)
	// Listens on the ping, answers it never; answers the diff it holds once pinged.
	_, err := nc.Subscribe(PingSubject, func(*nats.Msg) { pinged <- struct{}{} })
	require.NoError(t, err)
	_, err = nc.QueueSubscribe(Prefix+"."+EndpointDiff, QueueGroup, func(m *nats.Msg) {
		<-pinged
		_ = m.Respond([]byte(`{"v":1}`))
	})
	require.NoError(t, err)
	require.NoError(t, nc.Flush())

	c := NewClient(conn(), 20*time.Second)
	_, err = c.Diff(t.Context(), DiffRequest{V: WireVersion})
	assert.NoError(t, err, "the answer sat in the buffer when the ping went unanswered")
}

// A worker found hung that was then killed is forgotten: the requests go to the queue group again.
func TestHungWorkerThatIsKilledIsForgotten(t *testing.T) {
	conn := testConn(t)
	var direct atomic.Int32
	liveWorker(t, conn(), "A", &direct)
	c := NewClient(conn(), 20*time.Second)
	require.NoError(t, c.Ping(t.Context()))
	// B answered this client once, hung, and was killed: nothing listens on its subjects.
	c.workers.answered("B")
	c.workers.markHung("B")
	require.Eventually(t, func() bool {
		_, err := c.Diff(t.Context(), DiffRequest{V: WireVersion})
		require.NoError(t, err)
		return !c.workers.isHung("B") && c.workers.pick() == "" && c.workers.allAnswered(map[string]bool{"A": true})
	}, 15*time.Second, 100*time.Millisecond, "the killed worker is still passed over as hung")
}

// Once a worker the client never heard from was found holding a request, the next requests pass
// the queue group over, so none waits on it; when it answers the ping again (back from a stop),
// the queue group hands it requests again.
func TestWorkerNeverHeardFromIsPassedOverOnceFoundHung(t *testing.T) {
	conn := testConn(t)
	var direct atomic.Int32
	liveWorker(t, conn(), "A", &direct)
	hung := conn()
	var handed atomic.Int32 // requests the queue group handed the hung worker
	var back atomic.Bool
	_, err := hung.QueueSubscribe(Prefix+"."+EndpointDiff, QueueGroup, func(m *nats.Msg) {
		handed.Add(1)
		if back.Load() {
			_ = m.Respond([]byte(`{"v":1}`))
		}
	})
	require.NoError(t, err)
	require.NoError(t, hung.Flush())

	c := NewClient(conn(), 20*time.Second)
	require.NoError(t, c.Ping(t.Context()))
	for try := 0; handed.Load() == 0; try++ {
		require.Less(t, try, 30, "the queue group never handed the hung worker a request")
		_, err := c.Diff(t.Context(), DiffRequest{V: WireVersion})
		require.NoError(t, err)
	}
	for range 8 {
		_, err := c.Diff(t.Context(), DiffRequest{V: WireVersion})
		require.NoError(t, err)
	}
	assert.EqualValues(t, 1, handed.Load(), "calls after it was found hung were handed to the hung worker")

	// Back: it answers the ping, and is handed requests again.
	back.Store(true)
	_, err = hung.Subscribe(PingSubject, func(m *nats.Msg) { _ = m.Respond([]byte(`{"id":"B"}`)) })
	require.NoError(t, err)
	require.NoError(t, hung.Flush())
	require.Eventually(t, func() bool {
		_, err := c.Diff(t.Context(), DiffRequest{V: WireVersion})
		require.NoError(t, err)
		return handed.Load() > 1
	}, 20*time.Second, 50*time.Millisecond, "the worker that hung is never handed a request again")
}
