package console

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/corral-farm/corral/broker"
)

// The gateway's side of live screens. Each watched device has one feed: one subscription to
// its node's frames and one watch request a second to the node, whatever the number of
// browsers looking (each is a sink). The first sink starts the feed; the last one to leave
// stops it, and tells the node at once, so the node's capture stops without waiting for the
// watch to lapse.

// watchEvery is how often a feed repeats its watch request: well within broker.WatchTTL.
const watchEvery = time.Second

// hub keeps the feeds of one gateway.
type hub struct {
	screens Screens
	farm    Farm
	watcher string
	metrics *Metrics
	log     *slog.Logger

	mu    sync.Mutex
	feeds map[string]*feed // by serial
}

// feed is one watched device.
type feed struct {
	serial string
	sinks  map[*sink]ask
	last   *broker.Frame // sent to a sink that joins, so a page shows a screen at once
	stop   context.CancelFunc
	done   chan struct{}
}

// ask is what one sink wants of a device's frames.
type ask struct {
	width int
	fps   float64
}

// sink is one browser's stream: the latest frame of each device not yet sent (a slow browser
// gets fewer frames, never a backlog), and a signal that there are some.
type sink struct {
	mu     sync.Mutex
	frames map[string]broker.Frame
	ready  chan struct{}
}

func newSink() *sink { return &sink{frames: map[string]broker.Frame{}, ready: make(chan struct{}, 1)} }

func (s *sink) put(f broker.Frame) {
	s.mu.Lock()
	s.frames[f.Serial] = f
	s.mu.Unlock()
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// take returns the frames waiting, and forgets them.
func (s *sink) take() []broker.Frame {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]broker.Frame, 0, len(s.frames))
	for _, f := range s.frames {
		out = append(out, f)
	}
	clear(s.frames)
	return out
}

func newHub(screens Screens, farm Farm, watcher string, m *Metrics, log *slog.Logger) *hub {
	return &hub{screens: screens, farm: farm, watcher: watcher, metrics: m, log: log, feeds: map[string]*feed{}}
}

// attach has s receive serial's frames, starting the device's feed if it has none.
func (h *hub) attach(s *sink, serial string, a ask) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f, ok := h.feeds[serial]
	if !ok {
		ctx, cancel := context.WithCancel(context.Background())
		f = &feed{serial: serial, sinks: map[*sink]ask{}, stop: cancel, done: make(chan struct{})}
		h.feeds[serial] = f
		h.metrics.feeds(1)
		go h.run(ctx, f)
	}
	f.sinks[s] = a
	if f.last != nil {
		s.put(*f.last)
	}
}

// detach ends s's interest in serial; the last sink stops the feed.
func (h *hub) detach(s *sink, serial string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f, ok := h.feeds[serial]
	if !ok {
		return
	}
	delete(f.sinks, s)
	if len(f.sinks) == 0 {
		delete(h.feeds, serial)
		h.metrics.feeds(-1)
		f.stop()
	}
}

// deliver hands a frame to every sink of its feed.
func (h *hub) deliver(f *feed, fr broker.Frame) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.feeds[f.serial] != f {
		return // stopped meanwhile
	}
	f.last = &fr
	for s := range f.sinks {
		s.put(fr)
	}
	h.metrics.relayed(len(f.sinks))
}

// want is the largest width and rate any sink of f asks.
func (h *hub) want(f *feed) ask {
	h.mu.Lock()
	defer h.mu.Unlock()
	var a ask
	for _, s := range f.sinks {
		a.width, a.fps = max(a.width, s.width), max(a.fps, s.fps)
	}
	return a
}

// run keeps a feed: subscribed to the frames of the device's node (again if the device moves
// to another node), and watching it, until ctx ends; then it tells the node to stop.
func (h *hub) run(ctx context.Context, f *feed) {
	defer close(f.done)
	var node string
	unsubscribe := func() {}
	defer func() { unsubscribe() }()
	var lastErr string
	say := func(err error) { // once, not every second
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if msg != "" && msg != lastErr {
			h.log.Info("console: live screen unavailable", "serial", f.serial, "err", msg)
		}
		lastErr = msg
	}
	tick := time.NewTicker(watchEvery)
	defer tick.Stop()
	for {
		if d, ok := h.farm.Device(f.serial); ok && d.Node != node {
			unsubscribe()
			n, stop, err := h.screens.SubscribeFrames(f.serial, func(fr broker.Frame) { h.deliver(f, fr) })
			if err == nil {
				node, unsubscribe = n, stop
			} else {
				node, unsubscribe = "", func() {}
			}
			say(err)
		}
		if node != "" {
			a := h.want(f)
			wctx, cancel := context.WithTimeout(ctx, watchEvery)
			ans, err := h.screens.Watch(wctx, broker.WatchRequest{Serial: f.serial, Watcher: h.watcher, MaxWidth: a.width, FPS: a.fps})
			cancel()
			if err == nil && ans.Error != "" {
				err = fmt.Errorf("node %s refused to watch (%s): %s", node, ans.Code, ans.Error)
			}
			if ctx.Err() == nil {
				say(err)
			}
		}
		select {
		case <-ctx.Done():
			if node != "" {
				sctx, cancel := context.WithTimeout(context.Background(), watchEvery)
				_, _ = h.screens.Watch(sctx, broker.WatchRequest{Serial: f.serial, Watcher: h.watcher, Stop: true})
				cancel()
			}
			return
		case <-tick.C:
		}
	}
}
