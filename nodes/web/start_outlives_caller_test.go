package web

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/farmtest"
)

// Brief C 3: a call whose deadline passes while an elastic browser starts used to cancel the
// start, so a browser whose callers all give deadlines shorter than Chromium's start never ran.
// The start now goes on: the caller is told nothing ran and to call again, the browser comes up
// with no further call, and the next call uses that browser rather than starting another. The
// start is held at a gate until the call has given up, so its deadline passes during the start
// however fast the machine starts Chromium.
func TestBrowserStartOutlivesTheCallerThatGaveUpOnIt(t *testing.T) {
	gate := gateChromium(t)
	d := startBrowserWith(t, Options{Serial: "web-slow", Lazy: true, Idle: time.Hour})
	f := browserFarm(t, d, 0)
	c := f.Client("caller")

	res := farmtest.Call(t, c, "get_foreground_app", map[string]any{"serial": "web-slow", "timeout_ms": 300})
	gaveUp := farmtest.Text(res)
	t.Logf("get_foreground_app with timeout_ms 300 on a browser held at its start: %s", gaveUp)
	if !res.IsError || !strings.Contains(gaveUp, "timed out") || !strings.Contains(gaveUp, "nothing ran: the browser is still starting") || !strings.Contains(gaveUp, "call again") {
		t.Fatalf("get_foreground_app with timeout_ms 300 on a browser held at its start: %s; want timed out: nothing ran, the browser is still starting, call again", gaveUp)
	}
	farmtest.Eventually(t, startLimit, gate.Reached, "the browser's start to reach the gate after its caller gave up")
	gate.Open()

	farmtest.Eventually(t, startLimit+10*time.Second, d.Running,
		"the browser whose only caller gave up on its start (%q) to run, with no further call", gaveUp)
	profile := d.Downloads()
	farmtest.MustCall(t, c, "get_foreground_app", map[string]any{"serial": "web-slow"})
	if now := d.Downloads(); now != profile {
		t.Fatalf("the next call started another browser (profile %s, the background start's was %s); want it to use the one that was ready", now, profile)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := d.Health(ctx); err != nil {
		t.Fatalf("health after the start: %v", err)
	}
}
