package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"

	"github.com/corral-farm/corral/internal/buildinfo"
	"github.com/corral-farm/corral/internal/jsguard"
	"github.com/corral-farm/corral/vision"
)

// Engine does the work: vision/worker's *Engine (cgo, the `vision` build tag). Bad input comes
// back as a *vision.Error with vision.CodeBadInput; each call ends by its context's deadline.
type Engine interface {
	OCR(ctx context.Context, req vision.OCRRequest) (vision.OCRResult, error)
	Match(ctx context.Context, req vision.MatchRequest) (vision.MatchResult, error)
	Elements(ctx context.Context, req vision.ElementsRequest) (vision.ElementsResult, error)
	Diff(ctx context.Context, req vision.DiffRequest) (vision.DiffResult, error)
	Annotate(ctx context.Context, req vision.AnnotateRequest) (vision.AnnotateResult, error)
}

// MaxRequestBytes bounds a request: two images of vision.MaxImageBytes (a diff's frames, a
// match's screen and template), base64 in JSON, and room for the rest. A larger one is refused
// before it is decoded. NATS's max payload must allow it (broker/embedded.MaxPayload).
const MaxRequestBytes = 2*((vision.MaxImageBytes+2)/3*4) + 64<<10

// Defaults of Options.
const (
	// DefaultTimeout is vision.Client's attempt: a request not answered by then is tried on
	// another worker, so finishing it later would be wasted work.
	DefaultTimeout = 20 * time.Second
)

// Options configure a vision worker's service.
type Options struct {
	Engine Engine
	// Parallel is how many requests the engine works on at once; 0: GOMAXPROCS.
	Parallel int
	// MaxWaiting is how many more may wait for a slot; more are refused at once with
	// CodeBusy (each holds its images while it waits). 0: 32 × Parallel, a burst of a busy
	// farm's screenshots: a request waits at most Timeout anyway.
	MaxWaiting int
	// Timeout bounds a request from its arrival (waiting included) to its answer; 0:
	// DefaultTimeout.
	Timeout time.Duration
	// Instance names this worker in its micro service's metadata and its error answers
	// (a host or pod name); empty: the micro service's id.
	Instance string
	Metrics  *Metrics // nil: none
	Log      *slog.Logger

	// started, when set, is called as a request gets its slot, before the engine runs (tests:
	// a worker that dies mid-request).
	started func(ctx context.Context, op string)
}

// CodeBusy answers a request that found Options.MaxWaiting others waiting on a worker (the
// client asks again, after a pause, while its deadline allows).
const CodeBusy = vision.CodeBusy

// Service is a running vision worker's micro service.
type Service struct {
	opts     Options
	nc       *nats.Conn
	log      *slog.Logger
	svc      micro.Service
	slots    chan struct{}
	admitted atomic.Int64 // requests running or waiting for a slot
	seq      atomic.Uint64
	running  sync.WaitGroup
	// admit guards running.Add against Stop's Wait (a request Stop overtook); stopping: Stop began.
	admit    sync.Mutex
	stopping bool
	held     heldCalls       // the calls under way here, for clients that ask (holds.go)
	id       string          // the micro service's id: vision.WorkerHeader, vision.DirectSubject
	ctx      context.Context // cancelled when Stop gives up waiting
	cancel   context.CancelFunc
}

// Start serves opts.Engine on nc as the micro service vision.Service: the endpoints
// vision.Prefix.{ocr,match,elements,diff,annotate} in the queue group vision.QueueGroup.
func Start(nc *nats.Conn, opts Options) (*Service, error) {
	if opts.Engine == nil {
		return nil, errors.New("vision service: no engine")
	}
	if opts.Parallel <= 0 {
		opts.Parallel = runtime.GOMAXPROCS(0)
	}
	if opts.MaxWaiting <= 0 {
		opts.MaxWaiting = 32 * opts.Parallel
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Service{opts: opts, nc: nc, log: log, slots: make(chan struct{}, opts.Parallel)}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	meta := map[string]string{"parallel": strconv.Itoa(opts.Parallel), "timeout": opts.Timeout.String()}
	if opts.Instance != "" {
		meta["instance"] = opts.Instance
	}
	svc, err := micro.AddService(nc, micro.Config{
		Name:        vision.Service,
		Version:     buildinfo.Version(),
		Description: "Corral vision worker: OCR, template matching, element listing, screen diff, annotation",
		Metadata:    meta,
		QueueGroup:  vision.QueueGroup,
		ErrorHandler: func(_ micro.Service, err *micro.NATSError) {
			log.Error("vision service: NATS error", "subject", err.Subject, "err", err.Description)
		},
	})
	if err != nil {
		s.cancel()
		return nil, fmt.Errorf("vision service: add micro service: %w", err)
	}
	s.svc = svc
	s.id = svc.Info().ID
	if opts.Instance == "" {
		s.opts.Instance = s.id
	}
	if m := opts.Metrics; m != nil {
		m.slots.Set(float64(opts.Parallel))
	}
	e := opts.Engine
	endpoints := []struct {
		name    string
		handler micro.HandlerFunc
	}{
		{vision.EndpointOCR, handle(s, vision.EndpointOCR, e.OCR, func(r *vision.OCRRequest) (int, [][]byte) {
			return r.V, [][]byte{r.Image}
		})},
		{vision.EndpointMatch, handle(s, vision.EndpointMatch, e.Match, func(r *vision.MatchRequest) (int, [][]byte) {
			return r.V, [][]byte{r.Image, r.Template}
		})},
		{vision.EndpointElements, handle(s, vision.EndpointElements, e.Elements, func(r *vision.ElementsRequest) (int, [][]byte) {
			return r.V, [][]byte{r.Image}
		})},
		{vision.EndpointDiff, handle(s, vision.EndpointDiff, e.Diff, func(r *vision.DiffRequest) (int, [][]byte) {
			return r.V, [][]byte{r.Before, r.After}
		})},
		{vision.EndpointAnnotate, handle(s, vision.EndpointAnnotate, e.Annotate, func(r *vision.AnnotateRequest) (int, [][]byte) {
			return r.V, [][]byte{r.Image}
		})},
	}
	g := svc.AddGroup(vision.Prefix)
	// The same endpoints again where this worker alone serves them (still in the queue group,
	// as the vision user may serve only there): a client sends there to pass over a hung worker.
	direct := svc.AddGroup(strings.TrimSuffix(vision.DirectSubject(s.id, ""), "."))
	guard := jsguard.New(log) // only nodes and gateways send requests
	for _, ep := range endpoints {
		err := g.AddEndpoint(ep.name, guard.Micro(ep.handler))
		if err == nil {
			err = direct.AddEndpoint("direct-"+ep.name, guard.Micro(ep.handler), micro.WithEndpointSubject(ep.name))
		}
		if err != nil {
			_ = svc.Stop()
			s.cancel()
			return nil, fmt.Errorf("vision service: add endpoint %s: %w", ep.name, err)
		}
	}
	if err := direct.AddEndpoint("direct-"+vision.EndpointHolds, guard.Micro(s.handleHolds), micro.WithEndpointSubject(vision.EndpointHolds)); err != nil {
		_ = svc.Stop()
		s.cancel()
		return nil, fmt.Errorf("vision service: add endpoint %s: %w", vision.EndpointHolds, err)
	}
	// Start returns once the server has the subscriptions: a request sent next finds them.
	// A subscription NATS refused is the connection's last error by then (refused.go).
	err = nc.Flush()
	if err == nil {
		err = refusedSubscription(nc)
	}
	if err != nil {
		_ = svc.Stop()
		s.cancel()
		return nil, fmt.Errorf("vision service: %w", err)
	}
	log.Info("vision worker serving", "service", vision.Service, "subjects", vision.Prefix+".>", "queue", vision.QueueGroup,
		"parallel", opts.Parallel, "timeout", opts.Timeout, "instance", s.opts.Instance)
	return s, nil
}

// Info describes the micro service (its id, endpoints and metadata).
func (s *Service) Info() micro.Info { return s.svc.Info() }

// Stop stops taking requests and waits for those under way to be answered, until ctx ends;
// then it cancels them (their callers try another worker) and returns ctx's error.
func (s *Service) Stop(ctx context.Context) error {
	s.admit.Lock()
	s.stopping = true
	s.admit.Unlock()
	err := s.svc.Stop()
	// The endpoints' unsubscriptions are sent, not yet taken: once the server has them, no
	// request sent after Stop returns comes here (a queue group's other workers get it).
	err = errors.Join(err, s.nc.Flush())
	done := make(chan struct{})
	go func() { s.running.Wait(); close(done) }()
	select {
	case <-done:
		s.cancel()
		return err
	case <-ctx.Done():
		s.cancel()
		return errors.Join(err, fmt.Errorf("vision service: requests still running at stop: %w", ctx.Err()))
	}
}

// handle returns the handler of one endpoint: check the size, admit or refuse, and serve the
// request off micro's delivery goroutine (one per endpoint), so that Parallel requests of any
// endpoints run at once.
func handle[Req, Res any](s *Service, op string, run func(context.Context, Req) (Res, error), parts func(*Req) (v int, images [][]byte)) micro.HandlerFunc {
	return func(r micro.Request) {
		arrived := time.Now()
		if n := len(r.Data()); n > MaxRequestBytes {
			s.refuse(r, op, OutcomeBadInput, "bad_input", vision.CodeBadInput,
				fmt.Sprintf("the request is %d bytes, more than a vision worker takes (%d): send smaller images (at most %d bytes each, encoded)", n, MaxRequestBytes, vision.MaxImageBytes))
			return
		}
		if n := oversizedImage(r.Data(), imageFields(op)); n > 0 {
			s.refuse(r, op, OutcomeBadInput, "bad_input", vision.CodeBadInput, vision.ImageTooLarge(n).Message)
			return
		}
		if n := s.admitted.Add(1); n > int64(s.opts.Parallel+s.opts.MaxWaiting) {
			s.admitted.Add(-1)
			s.refuse(r, op, OutcomeBusy, "busy", CodeBusy,
				fmt.Sprintf("vision worker %s is busy: %d requests wait for its %d slots; try again, or add workers (corral vision)", s.opts.Instance, s.opts.MaxWaiting, s.opts.Parallel))
			return
		}
		s.admit.Lock()
		if s.stopping {
			s.admit.Unlock()
			s.admitted.Add(-1)
			s.refuse(r, op, OutcomeBusy, "busy", CodeBusy,
				fmt.Sprintf("vision worker %s is stopping: send the request again (another worker takes it)", s.opts.Instance))
			return
		}
		s.running.Add(1)
		s.admit.Unlock()
		s.gauge(func(m *Metrics) { m.waiting.Inc() })
		held := s.held.take(r.Headers().Get(vision.CallHeader))
		go func() {
			defer s.running.Done()
			defer s.admitted.Add(-1)
			defer held()
			serve(s, r, op, arrived, run, parts)
		}()
	}
}

// serve waits for a slot, decodes the request, runs the engine under the deadline and answers.
func serve[Req, Res any](s *Service, r micro.Request, op string, arrived time.Time, run func(context.Context, Req) (Res, error), parts func(*Req) (int, [][]byte)) {
	ctx, cancel := context.WithDeadline(s.ctx, arrived.Add(s.opts.Timeout))
	defer cancel()
	slot := false
	select {
	case s.slots <- struct{}{}:
		if slot = ctx.Err() == nil; !slot {
			<-s.slots // got it too late: the deadline came first
		}
	case <-ctx.Done():
	}
	if !slot {
		s.gauge(func(m *Metrics) { m.waiting.Dec() })
		if s.ctx.Err() != nil { // stopped, not out of time: a request the unsubscription overtook
			s.refuse(r, op, OutcomeBusy, "busy", CodeBusy,
				fmt.Sprintf("vision worker %s is stopping: send the request again (another worker takes it)", s.opts.Instance))
			return
		}
		s.refuse(r, op, OutcomeTimeout, "timeout", vision.CodeFailed,
			fmt.Sprintf("vision worker %s found no free slot within %s: the farm needs more vision workers", s.opts.Instance, s.opts.Timeout))
		return
	}
	s.gauge(func(m *Metrics) {
		m.waiting.Dec()
		m.inFlight.Inc()
		m.wait.WithLabelValues(op).Observe(time.Since(arrived).Seconds())
	})
	defer func() {
		<-s.slots
		s.gauge(func(m *Metrics) { m.inFlight.Dec() })
	}()

	var req Req
	if err := json.Unmarshal(r.Data(), &req); err != nil {
		s.refuse(r, op, OutcomeBadInput, "bad_input", vision.CodeBadInput, "malformed "+op+" request: "+err.Error())
		return
	}
	v, images := parts(&req)
	if v > vision.WireVersion {
		s.refuse(r, op, OutcomeBadInput, "bad_input", vision.CodeBadInput,
			fmt.Sprintf("wire version %d is newer than this vision worker's %d: upgrade the worker", v, vision.WireVersion))
		return
	}
	for _, img := range images {
		if len(img) > vision.MaxImageBytes {
			s.refuse(r, op, OutcomeBadInput, "bad_input", vision.CodeBadInput, vision.ImageTooLarge(len(img)).Message)
			return
		}
	}
	if s.opts.started != nil {
		s.opts.started(ctx, op)
	}
	began := time.Now()
	res, err := protect(ctx, run, req)
	s.gauge(func(m *Metrics) { m.duration.WithLabelValues(op).Observe(time.Since(began).Seconds()) })
	if err != nil {
		s.fail(ctx, r, op, err)
		return
	}
	data, err := json.Marshal(res)
	if err == nil {
		err = s.answer(r, &nats.Msg{Data: data})
	}
	if err != nil {
		s.log.Error("vision: the answer could not be sent", "op", op, "err", err)
		msg := "the vision worker could not send its answer"
		if errors.Is(err, nats.ErrMaxPayload) {
			msg = "the answer is larger than NATS's max payload: send a smaller image"
		}
		s.refuse(r, op, OutcomeFailed, "reply", vision.CodeFailed, msg)
		return
	}
	s.count(op, OutcomeOK, "")
}

// errPanic is what a panicking engine call returns.
type errPanic struct {
	value any
	stack []byte
}

func (e *errPanic) Error() string { return fmt.Sprintf("panic: %v", e.value) }

// protect runs the engine, turning a panic into an error: one bad request must not take the
// worker (and every request it holds) down.
func protect[Req, Res any](ctx context.Context, run func(context.Context, Req) (Res, error), req Req) (res Res, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &errPanic{value: v, stack: debug.Stack()}
		}
	}()
	return run(ctx, req)
}

// fail answers an engine's error: a *vision.Error as it is, the deadline as a timeout, anything
// else as a 500 that names this worker and a reference in its log, not the error itself.
func (s *Service) fail(ctx context.Context, r micro.Request, op string, err error) {
	var ve *vision.Error
	var pe *errPanic
	switch {
	case errors.As(err, &ve):
		code, msg := ve.Code, ve.Message
		if code == "" {
			code = vision.CodeFailed
		}
		if msg == "" {
			msg = "the vision worker refused the request"
		}
		outcome, reason := OutcomeFailed, "engine"
		if code == vision.CodeBadInput {
			outcome, reason = OutcomeBadInput, "bad_input"
		}
		s.refuse(r, op, outcome, reason, code, msg)
	case ctx.Err() != nil && s.ctx.Err() == nil:
		s.refuse(r, op, OutcomeTimeout, "timeout", vision.CodeFailed,
			fmt.Sprintf("vision worker %s did not finish the %s request within %s", s.opts.Instance, op, s.opts.Timeout))
	default:
		ref := s.opts.Instance + "-" + strconv.FormatUint(s.seq.Add(1), 10)
		reason := "engine"
		if errors.As(err, &pe) {
			reason = "panic"
			s.log.Error("vision: the engine panicked", "op", op, "ref", ref, "panic", pe.value, "stack", string(pe.stack))
		} else {
			s.log.Error("vision: the engine failed", "op", op, "ref", ref, "err", err)
		}
		s.refuse(r, op, OutcomeFailed, reason, vision.CodeFailed,
			fmt.Sprintf("the vision worker failed on this %s request (reference %s in its log)", op, ref))
	}
}

// answer sends msg to r's requester. It publishes on the worker's connection rather than
// through r.Respond or r.Error: micro records their outcome in r, unguarded, and reads it as the
// handler returns, while these answers come later, from another goroutine.
func (s *Service) answer(r micro.Request, msg *nats.Msg) error {
	if r.Reply() == "" {
		return nil // a publish, not a request: no one to answer
	}
	msg.Subject = r.Reply()
	if msg.Header == nil {
		msg.Header = nats.Header{}
	}
	msg.Header.Set(vision.WorkerHeader, s.id)
	return s.nc.PublishMsg(msg)
}

// refuse answers with a micro error (micro's headers: vision.Client reads them) and counts it.
func (s *Service) refuse(r micro.Request, op, outcome, reason, code, msg string) {
	h := nats.Header{}
	h.Set(micro.ErrorHeader, msg)
	h.Set(micro.ErrorCodeHeader, code)
	s.count(op, outcome, reason)
	if err := s.answer(r, &nats.Msg{Header: h}); err != nil {
		s.log.Warn("vision: an error answer could not be sent", "op", op, "code", code, "err", err)
	}
}

func (s *Service) count(op, outcome, reason string) {
	s.gauge(func(m *Metrics) {
		m.requests.WithLabelValues(op, outcome).Inc()
		if reason != "" {
			m.errors.WithLabelValues(op, reason).Inc()
		}
	})
}

func (s *Service) gauge(f func(*Metrics)) {
	if s.opts.Metrics != nil {
		f(s.opts.Metrics)
	}
}
