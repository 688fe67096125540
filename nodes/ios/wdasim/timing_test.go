package wdasim_test

import (
	"context"
	"errors"
	"fmt"
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

// A client that goes away mid-gesture does not end it: the phone finishes the gesture and sees
// it, and the next request, /status too, waits for its end, as WebDriverAgent runs one command
// at a time.
func TestCancelledGestureRunsToItsEnd(t *testing.T) {
	r := newRig(t, 750, 1334, 2)
	s := "/session/" + r.session()
	n := len(r.phone.InputLog())
	const hold = 1500 * time.Millisecond
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	before := r.srv.Requests()
	start := time.Now()
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", r.hs.URL+s+"/wda/touchAndHold",
			strings.NewReader(fmt.Sprintf(`{"x":10,"y":20,"duration":%g}`, hold.Seconds())))
		resp, err := r.hs.Client().Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); r.srv.Requests() == before; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the hold never reached the server")
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled hold ended with %v", err)
	}
	if took := time.Since(start); took >= hold {
		t.Fatalf("the client's cancel took %s, the whole hold", took)
	}
	r.ok("GET", "/status", nil)
	if took := time.Since(start); took < hold {
		t.Errorf("/status answered %s after the hold began, before its %s end", took, hold)
	}
	if got := r.phone.InputLog()[n:]; len(got) != 1 || got[0] != "tap 20 40 hold=1.5s" {
		t.Errorf("the phone got %q; want the whole hold, finished", got)
	}
}
