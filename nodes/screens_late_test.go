package nodes

import (
	"bytes"
	"context"
	"errors"
	"image/jpeg"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/nodes/tools"
)

// lateLooker is a simulated phone whose looks outlast their capture's timeout, as every look
// at six watched phones did on a loaded node (2 cores, load ~22, -race): deaf to the
// timeout, it draws its frame only once the look was answered without it (answered).
type lateLooker struct {
	phone    *sim.Phone
	answered chan struct{}
}

func (d *lateLooker) Info() broker.DeviceEntry {
	return broker.DeviceEntry{Serial: "p1", Platform: "android"}
}
func (d *lateLooker) Deadline(string, int64) (time.Duration, error) { return 10 * time.Second, nil }
func (d *lateLooker) Health(ctx context.Context) error              { return d.phone.Health(ctx) }
func (d *lateLooker) Execute(context.Context, broker.TaskRequest, func(broker.Progress)) broker.TaskResult {
	return broker.TaskResult{Outcome: broker.OutcomeSucceeded}
}

func (d *lateLooker) Screen(ctx context.Context, maxWidth int) (actors.ScreenFrame, error) {
	select {
	case <-d.answered: // an answer to an earlier look
	default:
	}
	<-ctx.Done()
	select {
	case <-d.answered:
	case <-time.After(10 * time.Second):
	}
	data, size, err := tools.ScreenJPEG(context.Background(), d.phone, maxWidth)
	return actors.ScreenFrame{JPEG: data, Width: size.X, Height: size.Y}, err
}

// A device whose every look outlasts its capture's timeout and the grace period still gets
// its frames published, each newer than the last: the console shows a late picture rather
// than none. It fails when a frame that comes after its look was answered is thrown away.
func TestLateFramesArePublished(t *testing.T) {
	nc := startNATS(t)

	reg := prometheus.NewRegistry()
	metrics := actors.NewMetrics(reg)
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }))
	t.Cleanup(sys.Shutdown)
	cfg := actors.Config{Node: "n", Mirror: nopMirror{}, Metrics: metrics, Grace: 100 * time.Millisecond}
	props, started := actors.NewNodeSupervisorProps(actors.NewSchedulerProps(cfg), metrics, "n")
	sys.Root.Spawn(props)
	sched := <-started
	dev := &lateLooker{phone: sim.New("p1"), answered: make(chan struct{}, 1)}
	t.Cleanup(func() { _ = dev.phone.Close() })
	sys.Root.Send(sched, actors.AddDevice{Device: dev})

	ctx, cancel := context.WithCancel(context.Background())
	wg := &sync.WaitGroup{}
	t.Cleanup(func() { cancel(); wg.Wait() })
	look := lookThrough(sys.Root, sched)
	s := &screens{node: "n", nc: nc, metrics: metrics, log: slog.New(slog.DiscardHandler), ctx: ctx, wg: wg,
		watched: map[string]map[string]watch{}, timeout: 50 * time.Millisecond,
		known: func(serial string) bool { return serial == "p1" },
		look: func(ctx context.Context, serial string, w int, timeout time.Duration, late func(actors.ScreenFrame)) (actors.ScreenFrame, error) {
			f, err := look(ctx, serial, w, timeout, late)
			if err != nil && !errors.Is(err, actors.ErrCaptureBusy) {
				select {
				case dev.answered <- struct{}{}:
				default:
				}
			}
			return f, err
		},
	}

	frames := make(chan broker.Frame, 64)
	sub, err := nc.Subscribe(broker.FramesSubject("n", "p1"), func(m *nats.Msg) {
		if f, err := broker.ParseFrame(m); err == nil {
			frames <- f
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	keepWatching(t, s, broker.WatchRequest{Serial: "p1", Watcher: "gw", MaxWidth: 360, FPS: 10})

	var last uint64
	for range 3 {
		select {
		case f := <-frames:
			img, err := jpeg.Decode(bytes.NewReader(f.JPEG))
			if err != nil || img.Bounds().Dx() != 360 || f.Width != 360 {
				t.Fatalf("frame %d: %v px (%v), said %d px", f.Seq, img.Bounds(), err, f.Width)
			}
			if f.Seq <= last {
				t.Fatalf("frame %d after frame %d", f.Seq, last)
			}
			last = f.Seq
		case <-time.After(20 * time.Second):
			t.Fatalf("%d late frames published within 20s, want 3", last)
		}
	}
	if n := framesCounted(t, reg); n < 3 {
		t.Fatalf("corral_console_frames_total %g, want 3 at least", n)
	}
}

// keepWatching asks for req's watch, and again every second until the test ends, as a
// gateway's feed does (mcp/console/hub.go, watchEvery). Asked once, the watch lapsed after
// broker.WatchTTL (5 s) and its loop stopped looking: at load ~25 (2 cores, -race) these
// tests take longer than that, and failed with no frame or look to be seen.
func keepWatching(t *testing.T, s *screens, req broker.WatchRequest) {
	t.Helper()
	if ans := s.watch(req, time.Now()); ans.Error != "" {
		t.Fatalf("watch: %+v", ans)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				s.watch(req, time.Now())
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// framesCounted is corral_console_frames_total of node n.
func framesCounted(t *testing.T, reg *prometheus.Registry) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "corral_console_frames_total" {
			for _, m := range mf.GetMetric() {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// nopMirror mirrors nothing: no registry is watched here.
type nopMirror struct{}

func (nopMirror) Device(broker.DeviceEntry)        {}
func (nopMirror) Lease(string, *broker.Lease)      {}
func (nopMirror) Event(broker.Event)               {}
func (nopMirror) TaskRecord(res broker.TaskResult) {}

// startNATS starts an in-process nats-server and connects to it.
func startNATS(t *testing.T) *nats.Conn {
	t.Helper()
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	t.Cleanup(ns.Shutdown)
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server not ready")
	}
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// A late frame is published only if it is the newest: one that comes after a later look's
// frame was published is dropped, and the frames' Seq keeps counting up.
func TestOnlyTheNewestLateFrameIsPublished(t *testing.T) {
	nc := startNATS(t)
	frames := make(chan broker.Frame, 16)
	sub, err := nc.Subscribe(broker.FramesSubject("n", "p1"), func(m *nats.Msg) {
		if f, err := broker.ParseFrame(m); err == nil {
			frames <- f
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}

	// Each look hands the test its late func and waits for the test's answer.
	type asked struct {
		late   func(actors.ScreenFrame)
		answer chan error
	}
	looks := make(chan asked)
	ctx, cancel := context.WithCancel(context.Background())
	wg := &sync.WaitGroup{}
	t.Cleanup(func() { cancel(); wg.Wait() })
	s := &screens{node: "n", nc: nc, metrics: actors.NewMetrics(prometheus.NewRegistry()), log: slog.New(slog.DiscardHandler), ctx: ctx, wg: wg,
		watched: map[string]map[string]watch{},
		known:   func(serial string) bool { return serial == "p1" },
		look: func(ctx context.Context, _ string, w int, _ time.Duration, late func(actors.ScreenFrame)) (actors.ScreenFrame, error) {
			a := asked{late: late, answer: make(chan error)}
			select {
			case looks <- a:
			case <-ctx.Done():
				return actors.ScreenFrame{}, ctx.Err()
			}
			if err := <-a.answer; err != nil {
				return actors.ScreenFrame{}, err
			}
			return frameOf(w), nil
		},
	}
	keepWatching(t, s, broker.WatchRequest{Serial: "p1", Watcher: "gw", FPS: broker.WatchMaxFPS})
	next := func() asked { return within(t, looks, "a look") }
	published := func(what string) broker.Frame { return within(t, frames, what) }

	first := next()
	first.answer <- errors.New("slow") // answered without its frame
	second := next()
	second.answer <- nil
	if f := published("the second look's frame"); f.Seq != 1 {
		t.Fatalf("frame %d, want 1", f.Seq)
	}
	first.late(frameOf(200)) // older than the frame published: dropped
	third := next()
	third.answer <- errors.New("slow")
	fourth := next()         // refused while the third's driver still runs, as a capture is
	third.late(frameOf(360)) // newer: published
	fourth.answer <- actors.ErrCaptureBusy
	go func() { // later looks: refused, as while a driver is busy
		for {
			select {
			case a := <-looks:
				a.answer <- actors.ErrCaptureBusy
			case <-ctx.Done():
				return
			}
		}
	}()
	if f := published("the third look's late frame"); f.Seq != 2 || f.Width != 360 {
		t.Fatalf("frame %d, %d px: want the third look's, 2, 360 px (not the first look's, 200 px)", f.Seq, f.Width)
	}
	cancel()
}

// frameOf is a simulated phone's screen, w wide.
func frameOf(w int) actors.ScreenFrame {
	data, size, err := tools.ScreenJPEG(context.Background(), sim.New("p1"), w)
	if err != nil {
		panic(err)
	}
	return actors.ScreenFrame{JPEG: data, Width: size.X, Height: size.Y}
}

func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s within 10s", what)
	}
	var zero T
	return zero
}

// A frame answered after its look stopped waiting (the look's own timeout came first, as
// with a --grace above 2 s) goes to late, not to a channel no one reads.
func TestAnswerAfterTheWaitGoesToLate(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var reply func(actors.ScreenFrame, error)
	late := make(chan actors.ScreenFrame, 1)
	cancel()
	_, err := awaitCapture(ctx, func(f actors.ScreenFrame) { late <- f }, func(r func(actors.ScreenFrame, error)) { reply = r })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a look past its wait: %v", err)
	}
	reply(actors.ScreenFrame{Width: 7}, nil)
	if f := within(t, late, "the late frame"); f.Width != 7 {
		t.Fatalf("late frame %+v", f)
	}
}
