package console

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/corral-farm/corral/broker"
)

// stream is one open frames stream, read event by event.
type stream struct {
	cancel context.CancelFunc
	events chan frameEvent
}

func openStream(t *testing.T, srv *httptest.Server, query, token string) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/console/frames?"+query, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		cancel()
		t.Fatalf("frames stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	s := &stream{cancel: cancel, events: make(chan frameEvent, 16)}
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		event := ""
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: ") && event == "frame":
				var f frameEvent
				if json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &f) == nil {
					s.events <- f
				}
			}
		}
	}()
	t.Cleanup(cancel)
	return s
}

func (s *stream) next(t *testing.T) frameEvent {
	t.Helper()
	select {
	case f := <-s.events:
		return f
	case <-time.After(5 * time.Second):
		t.Fatal("no frame within 5s")
	}
	return frameEvent{}
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 5s: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Every page watching a device shares one subscription and one watch; a page that joins gets
// the last frame at once; when the last page goes, the node is told to stop.
func TestFramesSharedByEveryPage(t *testing.T) {
	screens := newFakeScreens()
	m := NewMetrics(prometheus.NewRegistry())
	srv := httptest.NewServer(New(Config{Farm: testFarm(), Screens: screens, Authenticate: authenticate, Metrics: m, Watcher: "gw_test"}))
	t.Cleanup(srv.Close)

	a := openStream(t, srv, "serial=d1&width=720&fps=3", simToken)
	eventually(t, "a watch of d1", func() bool { w, n := screens.lastWatch(); return n > 0 && w.Serial == "d1" })
	if w, _ := screens.lastWatch(); w.Watcher != "gw_test" || w.MaxWidth != 720 || w.FPS != 3 || w.Stop {
		t.Fatalf("watch %+v", w)
	}
	frame := func(seq uint64) broker.Frame {
		return broker.Frame{Node: "n1", Serial: "d1", Seq: seq, Width: 720, Height: 1600, Captured: time.Now(), JPEG: []byte(fmt.Sprintf("jpeg %d", seq))}
	}
	eventually(t, "the subscription", func() bool { return screens.publish(frame(1)) })
	f := a.next(t)
	if jpeg, _ := base64.StdEncoding.DecodeString(f.JPEG); string(jpeg) != "jpeg 1" || f.Serial != "d1" || f.Width != 720 || f.Height != 1600 {
		t.Fatalf("event %+v (%q)", f, jpeg)
	}

	b := openStream(t, srv, "serial=d1&serial=d3", simToken)
	if f := b.next(t); f.Seq != 1 {
		t.Fatalf("a page that joins got frame %d first, want the last one (1)", f.Seq)
	}
	eventually(t, "two watchers", func() bool { return testutil.ToFloat64(m.streams) == 2 })
	eventually(t, "d3's subscription", func() bool { screens.mu.Lock(); defer screens.mu.Unlock(); return len(screens.subs) == 2 })
	screens.mu.Lock()
	subscribed := screens.subscribed
	screens.mu.Unlock()
	if subscribed != 2 || testutil.ToFloat64(m.watched) != 2 { // d1 and d3, once each
		t.Fatalf("%d subscriptions, %v feeds for two pages on d1 and d3", subscribed, testutil.ToFloat64(m.watched))
	}
	screens.publish(frame(2))
	if a.next(t).Seq != 2 || b.next(t).Seq != 2 {
		t.Fatal("frame 2 did not reach both pages")
	}

	a.cancel()
	eventually(t, "a's stream to end", func() bool { return testutil.ToFloat64(m.streams) == 1 })
	screens.publish(frame(3))
	if b.next(t).Seq != 3 {
		t.Fatal("b lost d1 when a left")
	}
	b.cancel()
	eventually(t, "the node told to stop", func() bool {
		screens.mu.Lock()
		defer screens.mu.Unlock()
		stops := 0
		for _, w := range screens.watches {
			if w.Stop {
				stops++
			}
		}
		return stops == 2 && len(screens.subs) == 0
	})
	if testutil.ToFloat64(m.watched) != 0 || testutil.ToFloat64(m.streams) != 0 {
		t.Fatal("gauges not back to zero")
	}
}

func TestFramesRefusesBadAsks(t *testing.T) {
	srv := httptest.NewServer(New(Config{Farm: testFarm(), Screens: newFakeScreens(), Authenticate: authenticate}))
	t.Cleanup(srv.Close)
	var many strings.Builder
	for i := range maxStreamDevices + 1 {
		fmt.Fprintf(&many, "serial=x%d&", i)
	}
	for q, want := range map[string]int{"": http.StatusBadRequest, many.String(): http.StatusBadRequest, "serial=d2": http.StatusNotFound,
		"serial=d1&serial=nope": http.StatusNotFound} {
		if resp, _ := get(t, srv, "/console/frames?"+q, simToken); resp.StatusCode != want {
			t.Errorf("frames?%.40s: %d, want %d", q, resp.StatusCode, want)
		}
	}
}
