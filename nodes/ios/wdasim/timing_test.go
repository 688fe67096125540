package wdasim_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A gesture takes the time it was asked for, whichever route sends it, and the phone sees it.
func TestGesturesTakeTheirTime(t *testing.T) {
	r := newRig(t, 750, 1334, 2)
	s := "/session/" + r.session()
	const d = 300 * time.Millisecond
	swipe := map[string]any{"actions": []any{map[string]any{"type": "pointer", "id": "f", "actions": []any{
		map[string]any{"type": "pointerMove", "x": 100, "y": 500, "duration": 0},
		map[string]any{"type": "pointerDown", "button": 0},
		map[string]any{"type": "pause", "duration": 100},
		map[string]any{"type": "pointerMove", "x": 100, "y": 200, "duration": 200},
		map[string]any{"type": "pointerUp", "button": 0},
	}}}}
	for _, tc := range []struct {
		path string
		body any
		want string
	}{
		{"/actions", swipe, "swipe 200 1000 200 400 dur=200ms hold=100ms"},
		{"/wda/touchAndHold", map[string]any{"x": 10, "y": 20, "duration": d.Seconds()}, "tap 20 40 hold=300ms"},
		{"/wda/dragfromtoforduration", map[string]any{"fromX": 10, "fromY": 500, "toX": 10, "toY": 100, "duration": d.Seconds()},
			"swipe 20 1000 20 200 dur=0s hold=300ms"},
	} {
		start := time.Now()
		r.ok("POST", s+tc.path, tc.body)
		if took := time.Since(start); took < d {
			t.Errorf("%s answered after %s; want at least %s, the gesture's time", tc.path, took, d)
		}
		if got := r.lastInput(); got != tc.want {
			t.Errorf("%s: the phone got %q, want %q", tc.path, got, tc.want)
		}
	}
	// Off the screen: refused at once, not after the gesture's time.
	start := time.Now()
	r.fails("POST", s+"/wda/touchAndHold", map[string]any{"x": 400, "y": 20, "duration": 60}, 400, "invalid coordinates")
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("a touch off the screen was refused after %s", took)
	}
}

// A client that goes away mid-gesture ends it: the handler returns, the phone sees nothing, and
// the server answered other requests all along.
func TestCancelledGestureEnds(t *testing.T) {
	r := newRig(t, 750, 1334, 2)
	s := "/session/" + r.session()
	n := len(r.phone.InputLog())
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", r.hs.URL+s+"/wda/touchAndHold", strings.NewReader(`{"x":10,"y":20,"duration":20}`))
		resp, err := r.hs.Client().Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	before := r.srv.Requests()
	for deadline := time.Now().Add(10 * time.Second); r.srv.Requests() == before; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the hold never reached the server")
		}
	}
	r.ok("GET", "/status", nil)
	r.ok("GET", "/screenshot", nil)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled hold ended with %v", err)
	}
	// The handler returned (httptest's Close waits for it), and the phone got nothing.
	closed := make(chan struct{})
	go func() { r.hs.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler still holds the cancelled 20 s gesture 10 s on")
	}
	if got := r.phone.InputLog()[n:]; len(got) != 0 {
		t.Errorf("a cancelled gesture reached the phone: %q", got)
	}
}
