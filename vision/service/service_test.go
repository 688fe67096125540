package service

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/vision"
)

// These tests exercise the service's own work (bounds, slots, deadlines, error answers) with a
// gate: an engine that recognises nothing, and only holds each call until the test lets it go
// and then fails or answers an empty result as told. What the engine finds is tested with the
// real one (the `vision` build tag: workers_test.go).
type gate struct {
	release chan struct{} // closed or sent to: a held call returns
	calls   chan string   // each call's op, as it starts
	err     error         // what a call returns
	panics  bool
	// stubborn calls ignore their deadline while held (as a C library call would), and once let
	// go return their context's error when it has ended.
	stubborn bool
	now      atomic.Int64 // calls running
	most     atomic.Int64 // the most that ran at once
}

func newGate() *gate {
	return &gate{release: make(chan struct{}), calls: make(chan string, 100)}
}

func (g *gate) hold(ctx context.Context, op string) error {
	n := g.now.Add(1)
	defer g.now.Add(-1)
	for {
		m := g.most.Load()
		if n <= m || g.most.CompareAndSwap(m, n) {
			break
		}
	}
	g.calls <- op
	if g.stubborn {
		<-g.release
		<-ctx.Done()
		return ctx.Err()
	}
	select {
	case <-g.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	if g.panics {
		panic("engine bug: index out of range [7] in /src/secret/path.go")
	}
	return g.err
}

func (g *gate) OCR(ctx context.Context, _ vision.OCRRequest) (vision.OCRResult, error) {
	return vision.OCRResult{V: vision.WireVersion}, g.hold(ctx, vision.EndpointOCR)
}
func (g *gate) Match(ctx context.Context, _ vision.MatchRequest) (vision.MatchResult, error) {
	return vision.MatchResult{V: vision.WireVersion}, g.hold(ctx, vision.EndpointMatch)
}
func (g *gate) Elements(ctx context.Context, _ vision.ElementsRequest) (vision.ElementsResult, error) {
	return vision.ElementsResult{V: vision.WireVersion}, g.hold(ctx, vision.EndpointElements)
}
func (g *gate) Diff(ctx context.Context, _ vision.DiffRequest) (vision.DiffResult, error) {
	return vision.DiffResult{V: vision.WireVersion}, g.hold(ctx, vision.EndpointDiff)
}
func (g *gate) Annotate(ctx context.Context, _ vision.AnnotateRequest) (vision.AnnotateResult, error) {
	return vision.AnnotateResult{V: vision.WireVersion}, g.hold(ctx, vision.EndpointAnnotate)
}

// natsServer starts an embedded NATS (its max payload: embedded.MaxPayload) and returns a
// connection factory.
func natsServer(t testing.TB) func() *nats.Conn {
	t.Helper()
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	return func() *nats.Conn {
		nc, err := nats.Connect(ns.ClientURL())
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		return nc
	}
}

func startWorker(t testing.TB, nc *nats.Conn, opts Options) (*Service, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	opts.Metrics = NewMetrics(reg)
	s, err := Start(nc, opts)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Stop(ctx)
	})
	return s, reg
}

func eventually(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 20s: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func requests(reg *prometheus.Registry, op, outcome string) float64 {
	return counterValue(reg, "corral_vision_requests_total", map[string]string{"op": op, "outcome": outcome})
}

func counterValue(reg *prometheus.Registry, name string, labels map[string]string) float64 {
	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if labels[l.GetName()] != l.GetValue() {
					continue next
				}
			}
			if c := m.GetCounter(); c != nil {
				return c.GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	return -1
}

// The contract's names and broker's (which the NATS permissions are made of) agree.
func TestSubjectsAgreeWithBroker(t *testing.T) {
	assert.Equal(t, vision.Service, broker.VisionService)
	assert.Equal(t, vision.QueueGroup, broker.VisionQueue)
	assert.Equal(t, vision.Prefix+".>", broker.VisionRequests)
	assert.LessOrEqual(t, MaxRequestBytes, embedded.MaxPayload, "the embedded NATS refuses the largest vision request")
}

// The five endpoints, in the queue group, under the prefix; metrics start at zero for each.
func TestServiceEndpoints(t *testing.T) {
	conn := natsServer(t)
	s, reg := startWorker(t, conn(), Options{Engine: newGate(), Parallel: 3, Instance: "w1"})
	info := s.Info()
	assert.Equal(t, vision.Service, info.Name)
	assert.Equal(t, "3", info.Metadata["parallel"])
	var subjects, direct []string
	for _, e := range info.Endpoints {
		assert.Equal(t, vision.QueueGroup, e.QueueGroup, e.Name)
		if strings.HasPrefix(e.Name, "direct-") {
			direct = append(direct, e.Subject)
		} else {
			subjects = append(subjects, e.Subject)
		}
	}
	assert.ElementsMatch(t, []string{"corral.v1.vision.ocr", "corral.v1.vision.match", "corral.v1.vision.elements",
		"corral.v1.vision.diff", "corral.v1.vision.annotate"}, subjects)
	at := "corral.v1.vision.at." + info.ID + "."
	assert.ElementsMatch(t, []string{at + "ocr", at + "match", at + "elements", at + "diff", at + "annotate", at + "holds"}, direct,
		"the same endpoints where this worker alone serves them, and whether it holds a call")
	n, err := testutil.GatherAndCount(reg, "corral_vision_requests_total")
	require.NoError(t, err)
	assert.Equal(t, len(ops)*len(outcomes), n, "every op and outcome from zero")
	assert.Equal(t, 3.0, counterValue(reg, "corral_vision_slots", nil))
}

// At most Parallel requests run at once; the others wait (the queue gauge) and all are
// answered; beyond MaxWaiting a request is refused at once as busy.
func TestParallelBoundAndBusy(t *testing.T) {
	conn := natsServer(t)
	g := newGate()
	_, reg := startWorker(t, conn(), Options{Engine: g, Parallel: 2, MaxWaiting: 2})
	client := vision.NewClient(conn(), 30*time.Second)
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	for range 4 {
		wg.Go(func() {
			_, err := client.Diff(t.Context(), vision.DiffRequest{V: 1})
			errs <- err
		})
	}
	eventually(t, func() bool {
		return counterValue(reg, "corral_vision_in_flight", nil) == 2 && counterValue(reg, "corral_vision_queue", nil) == 2
	}, "2 running and 2 waiting")
	// A fifth is refused busy; the client asks again until its deadline, then says so.
	short, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	defer cancel()
	_, err := client.OCR(short, vision.OCRRequest{V: 1})
	var ve *vision.Error
	require.ErrorAs(t, err, &ve, "a fifth request")
	assert.Equal(t, CodeBusy, ve.Code)
	assert.Contains(t, ve.Message, "busy")
	assert.GreaterOrEqual(t, requests(reg, vision.EndpointOCR, OutcomeBusy), 2.0, "asked again after busy")

	// A sixth, with time to wait, is taken once there is room.
	wg.Go(func() {
		_, err := client.Diff(t.Context(), vision.DiffRequest{V: 1})
		errs <- err
	})
	eventually(t, func() bool { return requests(reg, vision.EndpointDiff, OutcomeBusy) >= 1 }, "the sixth refused busy")
	close(g.release)
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
	assert.Equal(t, int64(2), g.most.Load(), "calls that ran at once")
	eventually(t, func() bool { return requests(reg, vision.EndpointDiff, OutcomeOK) == 5 }, "5 diffs counted ok")
	// The slot is given back after the answer is counted: wait for it, not the clock.
	eventually(t, func() bool {
		return counterValue(reg, "corral_vision_in_flight", nil) == 0 && counterValue(reg, "corral_vision_queue", nil) == 0
	}, "no request in flight or waiting")
}

// An engine's *vision.Error goes back as its code and message; any other error, and a panic,
// as a 500 that leaks nothing of the worker, which keeps serving.
func TestErrorAnswers(t *testing.T) {
	conn := natsServer(t)
	client := vision.NewClient(conn(), 30*time.Second)
	for _, c := range []struct {
		name     string
		err      error
		panics   bool
		code     string
		outcome  string
		reason   string
		want     string
		notWants []string
	}{
		{name: "bad input", err: &vision.Error{Code: vision.CodeBadInput, Message: "the image is 0×0: send a screenshot"},
			code: vision.CodeBadInput, outcome: OutcomeBadInput, reason: "bad_input", want: "the image is 0×0: send a screenshot"},
		{name: "engine failure", err: errors.New("tesseract: /usr/share/tesseract-ocr/5/tessdata/secret.traineddata: init failed"),
			code: vision.CodeFailed, outcome: OutcomeFailed, reason: "engine", want: "failed on this match request (reference w-1",
			notWants: []string{"tessdata", "secret"}},
		{name: "panic", panics: true, code: vision.CodeFailed, outcome: OutcomeFailed, reason: "panic",
			want: "failed on this match request", notWants: []string{"index out of range", "secret"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := newGate()
			g.err, g.panics = c.err, c.panics
			close(g.release)
			s, reg := startWorker(t, conn(), Options{Engine: g, Instance: "w"})
			_, err := client.Match(t.Context(), vision.MatchRequest{V: 1})
			var ve *vision.Error
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, c.code, ve.Code)
			assert.Contains(t, ve.Message, c.want)
			for _, nw := range c.notWants {
				assert.NotContains(t, ve.Message, nw)
			}
			assert.Equal(t, 1.0, requests(reg, vision.EndpointMatch, c.outcome))
			assert.Equal(t, 1.0, counterValue(reg, "corral_vision_errors_total", map[string]string{"op": "match", "reason": c.reason}))
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			require.NoError(t, s.Stop(ctx))
		})
	}
}

// A request larger than MaxRequestBytes, too new, malformed, or with an image over
// vision.MaxImageBytes is refused as bad input without reaching the engine. One with an image
// over the bound is refused as it arrives, not decoded first (it takes no slot), and the client
// does not send one at all: decoding 11 MB under -race took the worker over 10 s, and on a
// loaded machine the client's ping went unanswered meanwhile (queued behind the 11 MB), so the
// call ended vision_unavailable instead. The requests the worker refuses are sent here as they
// are, without the client's hung check.
func TestBadRequestsNeverReachTheEngine(t *testing.T) {
	conn := natsServer(t)
	g := newGate()
	close(g.release)
	_, reg := startWorker(t, conn(), Options{Engine: g})
	nc := conn()
	client := vision.NewClient(nc, 30*time.Second)
	ask := func(endpoint string, data []byte) *nats.Msg {
		t.Helper()
		// No bound but the test's: 22 MB through the server took over 20 s under -race and load.
		msg, err := nc.RequestWithContext(t.Context(), vision.Prefix+"."+endpoint, data)
		require.NoError(t, err)
		return msg
	}
	huge := make([]byte, MaxRequestBytes+1)
	// A template of MaxImageBytes+1 zero bytes (3 bytes a 4 "A"s), as encoding/json writes it
	// (by hand: quicker under -race).
	zeros := strings.Repeat("AAAA", (vision.MaxImageBytes+1)/3)
	bigTemplate := []byte(`{"v":1,"image":"eA==","template":"` + zeros + `"}`)
	for _, c := range []struct {
		name, endpoint string
		data           []byte
		want           string
	}{
		{"too large", vision.EndpointOCR, huge, "more than a vision worker takes"},
		{"malformed", vision.EndpointOCR, []byte(`{"v":1,"image":`), "malformed ocr request"},
		{"not base64", vision.EndpointOCR, []byte(`{"v":1,"image":"%%%"}`), "malformed ocr request"},
		{"too new", vision.EndpointOCR, []byte(`{"v":99,"image":""}`), "wire version 99 is newer"},
		{"image too large", vision.EndpointOCR, []byte(`{"v":1,"image":"` + zeros + `"}`), "an image of 8388609 bytes is larger than 8388608"},
		{"template too large", vision.EndpointMatch, bigTemplate, "an image of 8388609 bytes is larger than 8388608"},
	} {
		began := time.Now()
		msg := ask(c.endpoint, c.data)
		t.Logf("%s: answered after %s", c.name, time.Since(began).Round(time.Millisecond))
		assert.Equal(t, vision.CodeBadInput, msg.Header.Get("Nats-Service-Error-Code"), c.name)
		assert.Contains(t, msg.Header.Get("Nats-Service-Error"), c.want, c.name)
	}
	began := time.Now()
	_, err := client.OCR(t.Context(), vision.OCRRequest{V: 1, Image: make([]byte, vision.MaxImageBytes+1)})
	t.Logf("the client's ocr with an image too large: refused after %s", time.Since(began).Round(time.Millisecond))
	var ve *vision.Error
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, vision.CodeBadInput, ve.Code)
	assert.Contains(t, ve.Message, "an image of 8388609 bytes is larger than 8388608")
	assert.Empty(t, g.calls, "the engine was called")
	assert.Equal(t, 5.0, requests(reg, vision.EndpointOCR, OutcomeBadInput), "the client sent the ocr with an image too large")
	assert.Equal(t, 1.0, requests(reg, vision.EndpointMatch, OutcomeBadInput))
	// Refused as they arrived: no image too large was decoded, so none took a slot.
	assert.Zero(t, slotsTaken(t, reg, vision.EndpointMatch), "the match with a template too large was decoded first")
	assert.EqualValues(t, 3, slotsTaken(t, reg, vision.EndpointOCR), "the ocrs that took a slot (malformed, not base64, too new)")
}

// slotsTaken is how many op requests got a slot (the queue wait histogram's count).
func slotsTaken(t *testing.T, reg *prometheus.Registry, op string) uint64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != "corral_vision_queue_wait_seconds" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "op" && l.GetValue() == op {
					return m.GetHistogram().GetSampleCount()
				}
			}
		}
	}
	t.Fatalf("no corral_vision_queue_wait_seconds for op %s", op)
	return 0
}

// A request not done within Timeout is answered as such, and so is one that cannot get a slot
// in time (the only slot held by an engine call that ignores its deadline).
func TestTimeout(t *testing.T) {
	conn := natsServer(t)
	g := newGate()
	g.stubborn = true
	_, reg := startWorker(t, conn(), Options{Engine: g, Parallel: 1, Timeout: 500 * time.Millisecond})
	client := vision.NewClient(conn(), 30*time.Second)
	first := make(chan error, 1)
	go func() {
		_, err := client.Elements(t.Context(), vision.ElementsRequest{V: 1})
		first <- err
	}()
	<-g.calls // the first holds the slot
	_, err := client.Elements(t.Context(), vision.ElementsRequest{V: 1})
	var ve *vision.Error
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, vision.CodeFailed, ve.Code)
	assert.Contains(t, ve.Message, "found no free slot within 500ms")
	close(g.release)
	require.ErrorAs(t, <-first, &ve)
	assert.Contains(t, ve.Message, "did not finish the elements request within 500ms")
	assert.Equal(t, 2.0, requests(reg, vision.EndpointElements, OutcomeTimeout))
	assert.Equal(t, 0.0, counterValue(reg, "corral_vision_queue", nil))
}

// No worker: the client says so at once.
func TestNoWorker(t *testing.T) {
	conn := natsServer(t)
	client := vision.NewClient(conn(), 30*time.Second)
	start := time.Now()
	_, err := client.OCR(t.Context(), vision.OCRRequest{V: 1})
	assert.ErrorIs(t, err, vision.ErrNoWorker)
	assert.Less(t, time.Since(start), 5*time.Second)
}

// A worker that answered busy and then does not answer before the call's deadline: the
// caller learns that the workers were busy, not only that time ran out.
func TestClientSaysBusyAtTheDeadline(t *testing.T) {
	connect := natsServer(t)
	// The worker's side of the wire: busy first, then silence (a request taken by a worker
	// that stalls, or lost).
	var asked atomic.Int32
	worker := connect()
	if _, err := worker.Subscribe(vision.Prefix+"."+vision.EndpointOCR, func(m *nats.Msg) {
		if asked.Add(1) == 1 {
			reply := nats.NewMsg(m.Reply)
			reply.Header.Set(micro.ErrorHeader, "busy: 2 waiting")
			reply.Header.Set(micro.ErrorCodeHeader, CodeBusy)
			_ = m.RespondMsg(reply)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := worker.Flush(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	_, err := vision.NewClient(connect(), time.Minute).OCR(ctx, vision.OCRRequest{V: 1})
	var ve *vision.Error
	if !errors.As(err, &ve) || ve.Code != CodeBusy {
		t.Fatalf("a call that met a busy worker and then its deadline: %v, want the busy error", err)
	}
	if asked.Load() < 2 {
		t.Fatalf("asked %d times: the client did not ask again after busy", asked.Load())
	}
}
