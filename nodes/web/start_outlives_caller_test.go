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
// with no further call, and the next call uses that browser rather than starting another.
func TestBrowserStartOutlivesTheCallerThatGaveUpOnIt(t *testing.T) {
	d := startBrowserWith(t, Options{Serial: "web-slow", Lazy: true, Idle: time.Hour})
	f := browserFarm(t, d, 0)
	c := f.Client("caller")
	gaveUp := ""
	// Shorter deadlines until one passes while the browser starts (a fast machine may start
	// Chromium within the first); a call that was in time is undone by a reset, which stops a
	// lazy device's browser.
	for _, ms := range []int{300, 150, 80, 40, 20} {
		if d.Running() {
			if err := d.Reset(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		res := farmtest.Call(t, c, "get_foreground_app", map[string]any{"serial": "web-slow", "timeout_ms": ms})
		text := farmtest.Text(res)
		t.Logf("get_foreground_app with timeout_ms %d on a stopped browser: %s", ms, text)
		if !res.IsError {
			continue
		}
		if !strings.Contains(text, "timed out") || !strings.Contains(text, "nothing ran: the browser is still starting") || !strings.Contains(text, "call again") {
			t.Fatalf("get_foreground_app with timeout_ms %d on a stopped browser: %s; want timed out: nothing ran, the browser is still starting, call again", ms, text)
		}
		gaveUp = text
		break
	}
	if gaveUp == "" {
		t.Skip("Chromium started within every deadline tried (20 ms the shortest): no call gave up on a start here")
	}
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
