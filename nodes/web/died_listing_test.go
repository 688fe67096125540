package web

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A browser that dies as a tap lists its tabs (the tap's first step) used to answer "list
// tabs: … context canceled": it now says the browser died, that nothing was done, and that the
// next call starts a new browser, which that call does, and does its work. The browser is
// stopped (SIGSTOP) so that the tap waits in the listing, then killed by its pid.
func TestABrowserDyingAsTheTabsAreListedSaysSo(t *testing.T) {
	d := startBrowser(t, "phone")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	pid := chromiumPid(t, d)
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	answer := make(chan error, 1)
	go func() { answer <- d.TapSelector(ctx, "body") }()
	// The tap holds two uses once it lists the tabs: its own, and the listing's (tab, pages).
	waitFor(t, "the tap lists the tabs", func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		return d.inflight >= 2
	})
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := <-answer
	t.Logf("tap by selector: %v", err)
	if !errors.Is(err, ErrBrowserDied) || !strings.Contains(err.Error(), "before the call did anything") ||
		!strings.Contains(err.Error(), "the next call starts a new browser") || strings.Contains(err.Error(), "context canceled") {
		t.Errorf("a tap whose browser died as it listed the tabs: %v; want it to say the browser died, before anything was done, and that the next call starts a new one", err)
	}
	if front, err := d.ForegroundApp(ctx); err != nil || front != "about:blank" {
		t.Errorf("the call after: %q (%v), want the new browser's about:blank", front, err)
	}
}
