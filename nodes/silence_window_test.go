package nodes

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/logtest"
)

// A node's process resumed after a stop (kill -STOP: its round trips stopped too) takes what
// comes as possibly answered already: before its next round trip comes back, the last one long
// ago, and after it, tasks asked about for askFor and lease requests refused for refuseFor; it
// says so once. Round trips at their interval open no window. Hearing of its loss has its
// tasks asked about, but refuses no lease request: what a gateway answered lost came before
// its verdict.
func TestSilenceWindows(t *testing.T) {
	var said logtest.Buffer
	s := newSilence(slog.New(slog.NewTextHandler(&said, nil)))
	s.connected()
	at := s.now()
	for range 4 {
		at += int64(time.Second / 2)
		s.roundTrip(at)
	}
	if s.mayHaveBeenLost() || s.heldThrough() || s.askUntil.Load() != 0 || s.refuseUntil.Load() != 0 {
		t.Fatal("round trips every half second opened a window")
	}

	s.heard.Store(s.now() - int64(silentAfter)) // stopped since
	if !s.mayHaveBeenLost() || !s.heldThrough() {
		t.Fatal("a node whose last round trip is as old as silentAfter takes its requests as before")
	}
	s.roundTrip(s.now())
	if !s.mayHaveBeenLost() || !s.heldThrough() {
		t.Fatal("the round trip that ends a silence closed a window at once")
	}
	for _, w := range []struct {
		name  string
		until int64
		want  time.Duration
	}{{"tasks asked", s.askUntil.Load(), askFor}, {"lease requests refused", s.refuseUntil.Load(), refuseFor}} {
		if left := time.Duration(w.until - s.now()); left <= w.want-time.Second/2 || left > w.want {
			t.Errorf("%s for %s more, want about %s", w.name, left, w.want)
		}
	}
	if n := strings.Count(said.String(), "this node was silent for"); n != 1 {
		t.Fatalf("the silence was said %d times, want once:\n%s", n, said.String())
	}

	s.askUntil.Store(0)
	s.refuseUntil.Store(0)
	s.heardLost("")
	if !s.mayHaveBeenLost() || s.heldThrough() {
		t.Fatalf("told of its loss, the node asks about its tasks %t (want true), refuses lease requests %t (want false)", s.mayHaveBeenLost(), s.heldThrough())
	}
}
