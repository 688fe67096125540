package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// A gesture longer than its call's deadline, on a static page, says that the call's time ran
// out before the browser was done and that what was sent may act, not that the page did not
// answer (QA Q13: a five-second swipe with timeout_ms 1000 said "the page did not answer (its
// script may hang, or it reloads itself without end): context canceled: the input was sent…").
func TestGestureLongerThanItsCallSaysTheCallEnded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>still</title><p style="height:3000px">still</p>`)
	}))
	t.Cleanup(srv.Close)
	d := startBrowser(t, "phone")
	if err := d.LaunchApp(t.Context(), srv.URL); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(context.Context) error{
		"swipe": func(ctx context.Context) error {
			return d.Swipe(ctx, device.Point{X: 100, Y: 900}, device.Point{X: 100, Y: 300}, 5*time.Second, 0)
		},
		"long press": func(ctx context.Context) error { return d.Tap(ctx, device.Point{X: 100, Y: 100}, 5*time.Second) },
	} {
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		err := f(ctx)
		cancel()
		if err == nil {
			t.Fatalf("%s of 5s within a call of 1s ended well", name)
		}
		msg := err.Error()
		t.Logf("%s: %v", name, err)
		for _, s := range []string{"the call's time (timeout_ms) ran out before the browser was done", "the input was sent"} {
			if !strings.Contains(msg, s) {
				t.Errorf("%s: %q does not say %q", name, msg, s)
			}
		}
		if strings.Contains(msg, "did not answer") {
			t.Errorf("%s: %q blames the page", name, msg)
		}
		if !strings.Contains(msg, "timeout_ms a few seconds longer") {
			t.Errorf("%s: %q does not hint at a longer timeout_ms", name, msg)
		}
	}
}
