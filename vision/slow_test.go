package vision

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/logtest"
)

// slowWorker stands in for a healthy worker that takes long over its OCRs (a large image): it
// answers the ping at once and, truly, whether it holds a call; it answers each OCR, sent to
// the queue group or its own subject, once release is closed. It counts the OCRs it got and
// the pings.
type slowWorker struct {
	ocrs, pings atomic.Int32
	mu          sync.Mutex
	held        map[string]bool
}

func startSlowWorker(t *testing.T, nc *nats.Conn, id string, release <-chan struct{}) *slowWorker {
	t.Helper()
	w := &slowWorker{held: map[string]bool{}}
	_, err := nc.Subscribe(PingSubject, func(m *nats.Msg) {
		w.pings.Add(1)
		_ = m.Respond([]byte(`{"id":"` + id + `"}`))
	})
	require.NoError(t, err)
	_, err = nc.QueueSubscribe(DirectSubject(id, EndpointHolds), QueueGroup, func(m *nats.Msg) {
		var req HoldsRequest
		_ = json.Unmarshal(m.Data, &req)
		w.mu.Lock()
		holds := w.held[req.Call]
		w.mu.Unlock()
		data, _ := json.Marshal(HoldsResult{V: 1, Holds: holds})
		_ = m.Respond(data)
	})
	require.NoError(t, err)
	ocr := func(m *nats.Msg) {
		w.ocrs.Add(1)
		call := m.Header.Get(CallHeader)
		w.mu.Lock()
		w.held[call] = true
		w.mu.Unlock()
		go func() {
			<-release
			out := nats.NewMsg(m.Reply)
			out.Header.Set(WorkerHeader, id)
			out.Data = []byte(`{"v":1,"width":7}`)
			_ = nc.PublishMsg(out)
		}()
	}
	_, err = nc.QueueSubscribe(Prefix+"."+EndpointOCR, QueueGroup, ocr)
	require.NoError(t, err)
	_, err = nc.QueueSubscribe(DirectSubject(id, EndpointOCR), QueueGroup, ocr)
	require.NoError(t, err)
	require.NoError(t, nc.Flush())
	return w
}

// pingedAfter waits until w has answered n more pings than it had (each a hung check of the
// waiting call, hungCheckEvery apart), or the call was answered (by another: the test says so).
func pingedAfter(t *testing.T, w *slowWorker, had, n int32, answered func() bool) {
	t.Helper()
	require.Eventually(t, func() bool { return w.pings.Load() >= had+n || answered() }, time.Minute, 20*time.Millisecond,
		"the client did not ping the workers while its call waited")
}

// A worker that is slow with a call but alive (it answers its ping and says it holds the call)
// is not sent the call again, nor is another worker: through three hung checks, the call waits
// on it and takes its answer.
func TestSlowWorkerGetsNoDuplicateAndNoOtherWorkerTheCall(t *testing.T) {
	conn := testConn(t)
	release := make(chan struct{})
	slow := startSlowWorker(t, conn(), "A", release)
	// B: alive, answers the ping and its own subject, but not in the queue group for OCRs, so
	// the call goes to A; an OCR sent to B is one sent again.
	other := conn()
	var toB atomic.Int32
	_, err := other.Subscribe(PingSubject, func(m *nats.Msg) { _ = m.Respond([]byte(`{"id":"B"}`)) })
	require.NoError(t, err)
	_, err = other.QueueSubscribe(DirectSubject("B", EndpointHolds), QueueGroup, func(m *nats.Msg) { _ = m.Respond([]byte(`{"v":1,"holds":false}`)) })
	require.NoError(t, err)
	_, err = other.QueueSubscribe(DirectSubject("B", EndpointOCR), QueueGroup, func(m *nats.Msg) {
		toB.Add(1)
		out := nats.NewMsg(m.Reply)
		out.Header.Set(WorkerHeader, "B")
		out.Data = []byte(`{"v":1,"width":9}`)
		_ = other.PublishMsg(out)
	})
	require.NoError(t, err)
	require.NoError(t, other.Flush())

	c := NewClient(conn(), 20*time.Second)
	require.NoError(t, c.Ping(t.Context()))
	had := slow.pings.Load()
	type answer struct {
		res OCRResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := c.OCR(t.Context(), OCRRequest{V: WireVersion})
		done <- answer{res, err}
	}()
	pingedAfter(t, slow, had, 3, func() bool { return len(done) > 0 })
	close(release)
	a := <-done
	require.NoError(t, a.err)
	assert.Equal(t, 7, a.res.Width, "the slow worker's answer")
	assert.EqualValues(t, 1, slow.ocrs.Load(), "OCRs the slow worker got")
	assert.Zero(t, toB.Load(), "the call was sent to the other worker while the slow one answered its ping")
}

// With one worker only, a slow call is never sent to it again: not at a hung check, not when
// its attempt ends. The call waits, within its deadline, and says so at debug.
func TestSlowCallOnTheOnlyWorkerWaitsPastItsAttempt(t *testing.T) {
	conn := testConn(t)
	release := make(chan struct{})
	slow := startSlowWorker(t, conn(), "A", release)
	var log logtest.Buffer
	const attempt = 4 * time.Second
	c := NewClient(conn(), attempt, WithLog(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	had := slow.pings.Load()
	done := make(chan error, 1)
	go func() {
		_, err := c.OCR(t.Context(), OCRRequest{V: WireVersion})
		done <- err
	}()
	pingedAfter(t, slow, had, 3, func() bool { return len(done) > 0 }) // past the attempt: 3 hung checks are 9 s
	close(release)
	require.NoError(t, <-done)
	assert.EqualValues(t, 1, slow.ocrs.Load(), "OCRs the only worker got")
	assert.NotEmpty(t, log.Line("waits past its attempt on the worker that holds it"), "log:\n%s", log.String())
}

// A worker that cannot say whether it holds a call (one older than the holds endpoint) may hold
// it: the call is not sent again, but waits only until its attempt ends, and is tried again, as
// before there was a holds endpoint; it does not wait out its deadline on a hung worker.
func TestWorkerThatCannotSayLetsTheAttemptEnd(t *testing.T) {
	conn := testConn(t)
	old := conn()
	_, err := old.Subscribe(PingSubject, func(m *nats.Msg) { _ = m.Respond([]byte(`{"id":"A"}`)) })
	require.NoError(t, err)
	_, err = old.QueueSubscribe(Prefix+"."+EndpointDiff, QueueGroup, func(m *nats.Msg) {
		out := nats.NewMsg(m.Reply)
		out.Header.Set(WorkerHeader, "A")
		out.Data = []byte(`{"v":1}`)
		_ = old.PublishMsg(out)
	})
	require.NoError(t, err)
	require.NoError(t, old.Flush())
	hung := conn() // never heard from, answers nothing
	var handed atomic.Int32
	_, err = hung.QueueSubscribe(Prefix+"."+EndpointDiff, QueueGroup, func(*nats.Msg) { handed.Add(1) })
	require.NoError(t, err)
	require.NoError(t, hung.Flush())

	c := NewClient(conn(), 4*time.Second)
	require.NoError(t, c.Ping(t.Context()))
	for try := 0; handed.Load() == 0; try++ {
		require.Less(t, try, 30, "the queue group never handed the hung worker a request")
		ctx, cancel := context.WithTimeout(t.Context(), 40*time.Second)
		_, err := c.Diff(ctx, DiffRequest{V: WireVersion})
		cancel()
		require.NoError(t, err, "call %d: it waited on the hung worker, not its attempt", try+1)
	}
}
