package nodes

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
)

// Live screens for the console (broker/frames.go): the node's watch endpoint, and one capture
// loop per watched device that publishes JPEG frames on the device's frames subject. A loop
// runs only while a watch is fresh (broker.WatchTTL), at the largest width and rate its
// watchers ask, and looks at the screen through the device's actor (actors/capture.go): between
// tasks, never alongside one, without a lease.

// Screen looks at the device's screen for the console (actors.Screener), as the screenshot
// tool does: Android's frame is scaled and encoded while it arrives; an unchanged frame a
// driver hands out again (a simulated phone's) is not scaled and encoded again (b.looks).
func (b *boundDevice) Screen(ctx context.Context, maxWidth int) (actors.ScreenFrame, error) {
	data, size, err := b.looks.ScreenJPEG(ctx, b.drv, maxWidth)
	return actors.ScreenFrame{JPEG: data, Width: size.X, Height: size.Y}, err
}

// screens keeps the node's watched devices.
type screens struct {
	node    string
	nc      *nats.Conn
	look    lookFunc
	timeout time.Duration // a capture's (actors.DefaultCaptureTimeout if zero)
	known   func(serial string) bool
	metrics *actors.Metrics
	log     *slog.Logger
	ctx     context.Context // the node's: loops end with it
	wg      *sync.WaitGroup

	mu      sync.Mutex
	watched map[string]map[string]watch // serial → watcher → its watch
}

// watch is one watcher's ask.
type watch struct {
	width int
	fps   float64
	until time.Time
}

// watchScreens returns the node's live screens.
func (n *Node) watchScreens(ctx context.Context) *screens {
	return &screens{node: n.cfg.ID, nc: n.cfg.NC, metrics: n.cfg.Metrics, log: n.cfg.Log.With("component", "screens"),
		ctx: ctx, wg: &n.wg, watched: map[string]map[string]watch{},
		known: func(serial string) bool {
			n.mu.Lock()
			defer n.mu.Unlock()
			_, ok := n.devices[serial]
			return ok
		},
		look: lookThrough(n.system.Root, n.sched),
	}
}

// lookFunc looks at serial's screen once, at most maxWidth wide, its driver given timeout; a
// frame that comes after the look was answered without it goes to late.
type lookFunc func(ctx context.Context, serial string, maxWidth int, timeout time.Duration, late func(actors.ScreenFrame)) (actors.ScreenFrame, error)

// lookThrough looks through the scheduler sched (actors/capture.go).
func lookThrough(root *actor.RootContext, sched *actor.PID) lookFunc {
	return func(ctx context.Context, serial string, maxWidth int, timeout time.Duration, late func(actors.ScreenFrame)) (actors.ScreenFrame, error) {
		return awaitCapture(ctx, late, func(reply func(actors.ScreenFrame, error)) {
			root.Send(sched, actors.CaptureScreen{Serial: serial, MaxWidth: maxWidth, Timeout: timeout, Reply: reply, Late: late})
		})
	}
}

// handle is the watch endpoint: corral.v1.node.<id>.watch.
func (s *screens) handle(r micro.Request) {
	var req broker.WatchRequest
	if !decode(r, &req) {
		return
	}
	respond(r, s.watch(req, time.Now()))
}

// watch records a watcher's ask (or its stop) and starts the device's loop if none runs.
func (s *screens) watch(req broker.WatchRequest, now time.Time) broker.WatchAnswer {
	ans := broker.WatchAnswer{V: broker.WireVersion}
	switch {
	case s.ctx.Err() != nil:
		ans.Code, ans.Error = broker.CodeNodeLost, fmt.Sprintf("node %s is stopping", s.node)
		return ans
	case !broker.ValidWatcher(req.Watcher):
		ans.Code, ans.Error = broker.CodeBadInput, fmt.Sprintf("watcher %q: name it with 1 to 64 letters, digits, '-' and '_'", req.Watcher)
		return ans
	case !s.known(req.Serial):
		ans.Code, ans.Error = broker.CodeUnknownDevice, fmt.Sprintf("no device %q on node %s; the registry names its node", req.Serial, s.node)
		return ans
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	by, running := s.watched[req.Serial]
	if req.Stop {
		delete(by, req.Watcher)
		ans.Watchers = len(by)
		return ans // the loop sees its last watcher gone at its next frame
	}
	if !running {
		by = map[string]watch{}
		s.watched[req.Serial] = by
	}
	if _, ok := by[req.Watcher]; !ok && len(by) >= broker.MaxWatchers {
		ans.Code, ans.Error = broker.CodeBadInput, fmt.Sprintf("device %s has %d watchers, the most a node keeps; retry later", req.Serial, len(by))
		return ans
	}
	by[req.Watcher] = watch{width: clampWidth(req.MaxWidth), fps: clampFPS(req.FPS), until: now.Add(broker.WatchTTL)}
	ans.Subject, ans.Watchers = broker.FramesSubject(s.node, req.Serial), len(by)
	if !running {
		s.metrics.Watched(s.node, 1)
		s.wg.Go(func() { s.loop(req.Serial) })
	}
	return ans
}

// ask returns the width and rate to capture serial at now, dropping lapsed watches; false when
// no watch is left, and then the device is no longer watched.
func (s *screens) ask(serial string, now time.Time) (width int, fps float64, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	by := s.watched[serial]
	for id, w := range by {
		if now.After(w.until) {
			delete(by, id)
			continue
		}
		width, fps = max(width, w.width), max(fps, w.fps)
	}
	if len(by) == 0 {
		delete(s.watched, serial)
		return 0, 0, false
	}
	return width, fps, true
}

// loop captures and publishes serial's screen while it is watched. A frame that comes late
// (screens_late.go) is published as it comes, unless a later look's was already.
func (s *screens) loop(serial string) {
	defer s.metrics.Watched(s.node, -1)
	var (
		seq     uint64 // frames published
		looks   uint64 // looks asked for
		shown   uint64 // the look whose frame was published last
		lastErr string
	)
	late := newLateFrames()
	say := func(err error) {
		switch {
		case err == nil:
			lastErr = ""
		case errors.Is(err, actors.ErrCaptureBusy):
		case err.Error() != lastErr: // say it once, not at every frame
			lastErr = err.Error()
			s.log.Info("live screen: no frame", "serial", serial, "err", err)
		}
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-s.ctx.Done():
			s.drop(serial)
			return
		case <-late.ready:
			f, ok := late.take()
			if !ok || f.look <= shown {
				continue
			}
			if _, _, watched := s.ask(serial, time.Now()); !watched {
				return
			}
			err := s.publish(serial, f.frame, seq+1, f.at)
			if err == nil {
				seq, shown = seq+1, f.look
			}
			say(err)
			continue
		case <-timer.C:
		}
		start := time.Now()
		width, fps, ok := s.ask(serial, start)
		if !ok {
			return
		}
		looks++
		look := looks
		shot, err := s.frame(serial, width, func(f actors.ScreenFrame) { late.put(lateFrame{look: look, frame: f, at: time.Now()}) })
		if err == nil {
			err = s.publish(serial, shot, seq+1, time.Now())
		}
		if err == nil {
			seq, shown = seq+1, look
		}
		say(err)
		timer.Reset(time.Until(start.Add(time.Duration(float64(time.Second) / fps))))
	}
}

// frame captures one frame, scaled and encoded on the way; one that comes late goes to late.
func (s *screens) frame(serial string, width int, late func(actors.ScreenFrame)) (actors.ScreenFrame, error) {
	timeout := s.timeout
	if timeout <= 0 {
		timeout = actors.DefaultCaptureTimeout
	}
	ctx, cancel := context.WithTimeout(s.ctx, timeout+2*time.Second)
	defer cancel()
	return s.look(ctx, serial, width, timeout, late)
}

// publish publishes shot as serial's frame seq, captured at.
func (s *screens) publish(serial string, shot actors.ScreenFrame, seq uint64, at time.Time) error {
	if len(shot.JPEG) > maxFrameBytes {
		return fmt.Errorf("device %s: a %d px frame takes %d bytes, more than a frame may (%d)", serial, shot.Width, len(shot.JPEG), maxFrameBytes)
	}
	f := broker.Frame{Node: s.node, Serial: serial, Seq: seq, Width: shot.Width, Height: shot.Height, Captured: at, JPEG: shot.JPEG}
	if err := s.nc.PublishMsg(f.Msg()); err != nil {
		return fmt.Errorf("device %s: publish a frame: %w", serial, err)
	}
	s.metrics.Frame(s.node, len(shot.JPEG))
	return nil
}

// drop forgets serial's watches (the node stops).
func (s *screens) drop(serial string) {
	s.mu.Lock()
	delete(s.watched, serial)
	s.mu.Unlock()
}

// maxFrameBytes bounds a frame message, well under NATS' 1 MiB default payload. A frame at
// most broker.WatchMaxWidth wide is far smaller.
const maxFrameBytes = 512 << 10

func clampWidth(w int) int {
	if w <= 0 {
		return broker.WatchDefaultWidth
	}
	return min(max(w, broker.WatchMinWidth), broker.WatchMaxWidth)
}

// clampFPS keeps a rate between one frame in WatchTTL (so a loop notices its watches lapse)
// and WatchMaxFPS.
func clampFPS(fps float64) float64 {
	if fps <= 0 || math.IsNaN(fps) {
		return broker.WatchDefaultFPS
	}
	return min(max(fps, 1/broker.WatchTTL.Seconds()), broker.WatchMaxFPS)
}
