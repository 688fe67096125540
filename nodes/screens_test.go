package nodes

import (
	"bytes"
	"context"
	"image/jpeg"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/nodes/tools"
)

// testScreens is a node's screens whose device p1 is always busy (no frame is published, so
// no NATS is needed): the bookkeeping of watches alone.
func testScreens(t *testing.T) (*screens, *atomic.Int64, *sync.WaitGroup) {
	ctx, cancel := context.WithCancel(context.Background())
	wg := &sync.WaitGroup{}
	t.Cleanup(func() { cancel(); wg.Wait() })
	looks := &atomic.Int64{}
	s := &screens{node: "n", metrics: actors.NewMetrics(prometheus.NewRegistry()), log: slog.New(slog.DiscardHandler), ctx: ctx, wg: wg,
		watched: map[string]map[string]watch{},
		known:   func(serial string) bool { return serial == "p1" },
		look: func(context.Context, string, int, time.Duration, func(actors.ScreenFrame)) (actors.ScreenFrame, error) {
			looks.Add(1)
			return actors.ScreenFrame{}, actors.ErrCaptureBusy
		},
	}
	return s, looks, wg
}

func TestWatchRefusesBadAsks(t *testing.T) {
	s, _, _ := testScreens(t)
	now := time.Now()
	for _, c := range []struct {
		req  broker.WatchRequest
		code string
	}{
		{broker.WatchRequest{Serial: "p1"}, broker.CodeBadInput},
		{broker.WatchRequest{Serial: "p1", Watcher: "a.b"}, broker.CodeBadInput},
		{broker.WatchRequest{Serial: "p1", Watcher: "a=b"}, broker.CodeBadInput},
		{broker.WatchRequest{Serial: "p9", Watcher: "gw"}, broker.CodeUnknownDevice},
	} {
		if ans := s.watch(c.req, now); ans.Code != c.code || ans.Subject != "" {
			t.Errorf("%+v: %+v, want code %s", c.req, ans, c.code)
		}
	}
	if len(s.watched) != 0 {
		t.Fatalf("a refused watch was kept: %v", s.watched)
	}
}

// Watches of several watchers share one loop, which captures at the largest width and rate
// asked, within bounds; it ends when the last watcher stops.
func TestWatchesShareOneLoop(t *testing.T) {
	s, looks, wg := testScreens(t)
	now := time.Now()
	a := s.watch(broker.WatchRequest{Serial: "p1", Watcher: "gw1", MaxWidth: 360, FPS: 2}, now)
	b := s.watch(broker.WatchRequest{Serial: "p1", Watcher: "gw2", MaxWidth: 99999, FPS: 100}, now)
	if a.Subject != "corral.v1.frames.n.p1" || a.Watchers != 1 || b.Watchers != 2 {
		t.Fatalf("answers %+v, %+v", a, b)
	}
	if w, fps, ok := s.ask("p1", now); !ok || w != broker.WatchMaxWidth || fps != broker.WatchMaxFPS {
		t.Fatalf("ask: %d px, %g fps, %v", w, fps, ok)
	}
	deadline := time.Now().Add(5 * time.Second)
	for looks.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the loop never looked")
		}
		time.Sleep(5 * time.Millisecond)
	}
	s.watch(broker.WatchRequest{Serial: "p1", Watcher: "gw2", Stop: true}, now)
	if w, fps, ok := s.ask("p1", now); !ok || w != 360 || fps != 2 {
		t.Fatalf("after gw2 stopped: %d px, %g fps, %v", w, fps, ok)
	}
	if ans := s.watch(broker.WatchRequest{Serial: "p1", Watcher: "gw1", Stop: true}, now); ans.Watchers != 0 {
		t.Fatalf("stop: %+v", ans)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the loop did not end when its last watcher stopped")
	}
	if len(s.watched) != 0 {
		t.Fatalf("still watched: %v", s.watched)
	}
}

// A watch not renewed lapses after WatchTTL; defaults fill a watch that names no size or rate.
func TestWatchLapses(t *testing.T) {
	s, _, _ := testScreens(t)
	now := time.Now()
	s.watch(broker.WatchRequest{Serial: "p1", Watcher: "gw"}, now)
	if w, fps, ok := s.ask("p1", now.Add(broker.WatchTTL-time.Millisecond)); !ok || w != broker.WatchDefaultWidth || fps != broker.WatchDefaultFPS {
		t.Fatalf("before the TTL: %d px, %g fps, %v", w, fps, ok)
	}
	if _, _, ok := s.ask("p1", now.Add(broker.WatchTTL+time.Millisecond)); ok {
		t.Fatal("a watch outlived its TTL")
	}
	if clampFPS(0.001) < 1/broker.WatchTTL.Seconds() || clampWidth(1) != broker.WatchMinWidth {
		t.Fatal("bounds not kept")
	}
}

// A frame is scaled to the width watched, and says its size: here a simulated phone's, whose
// driver gives a decoded image (Android's streams its frame: nodes/android's screen tests).
func TestFramesAreScaledToTheWatchedWidth(t *testing.T) {
	data, size, err := tools.ScreenJPEG(t.Context(), sim.New("p1"), 360)
	if err != nil {
		t.Fatal(err)
	}
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil || img.Bounds().Size() != size || size.X != 360 {
		t.Fatalf("a %v frame (%v), said to be %v; want 360 px wide", img.Bounds(), err, size)
	}
}
