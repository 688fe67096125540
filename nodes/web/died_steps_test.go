package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// killAt makes d's Chromium die (killed by its pid) the first time a call reaches step, and
// holds the call there until chromedp has seen the browser go: the step's command then meets
// a dead browser, as one sent a moment before the crash does.
func killAt(t *testing.T, d *Driver, step string) {
	t.Helper()
	var once sync.Once
	d.mu.Lock()
	d.atStep = func(s string) {
		if s != step {
			return
		}
		once.Do(func() {
			bctx := d.browserCtx()
			killChromium(t, d)
			waitFor(t, "chromedp sees the killed browser gone", func() bool { return browserDied(bctx) })
		})
	}
	d.mu.Unlock()
	t.Cleanup(func() {
		d.mu.Lock()
		d.atStep = nil
		d.mu.Unlock()
	})
}

// checkDiedSaid fails t unless err, what a call answered as its browser died at its step,
// says the browser died there (as), and that the next call starts a new browser; then the
// next call must work on the new browser, not answer that the browser was replaced.
func checkDiedSaid(ctx context.Context, t *testing.T, d *Driver, call string, err error, as string) {
	t.Helper()
	t.Logf("%s: %v", call, err)
	if !errors.Is(err, ErrBrowserDied) || !strings.Contains(err.Error(), as) ||
		!strings.Contains(err.Error(), "the next call starts a new browser") || strings.Contains(err.Error(), "context canceled") {
		t.Errorf("%s whose browser died: %v; want it to say the browser died %q, and that the next call starts a new one", call, err, as)
	}
	if front, err := d.ForegroundApp(ctx); err != nil || front != "about:blank" {
		t.Errorf("the call after %s: %q (%v), want the new browser's about:blank", call, front, err)
	}
}

// A browser that dies as a call brings its tab to the front (a fresh browser's first call
// does) said "bring the tab to the front: ... context canceled", and the next call that the
// browser had been replaced: it now says the browser died, and the next call does its work.
func TestABrowserDyingAsItsTabComesToTheFrontSaysSo(t *testing.T) {
	d := startBrowser(t, "phone")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	killAt(t, d, stepFront)
	checkDiedSaid(ctx, t, d, "tap by selector", d.TapSelector(ctx, "body"), "it died as the call brought its tab to the front")
}

// A browser that dies as a call takes over a tab a page opened said "take over a tab: ...",
// and the next call that the browser had been replaced: it now says the browser died, and
// the next call does its work.
func TestABrowserDyingAsATabIsTakenOverSaysSo(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><button id=open style="width:200px;height:100px" onclick="window.open('/other')">open</button>`)
	}))
	t.Cleanup(srv.Close)
	d := startBrowser(t, "phone")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := d.LaunchApp(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if err := d.TapSelector(ctx, "#open"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the page's new tab listed", func() bool {
		tabs, err := d.ListPackages(ctx)
		return err == nil && len(tabs) == 2
	})
	killAt(t, d, stepTakeOver)
	checkDiedSaid(ctx, t, d, "tap by selector", d.TapSelector(ctx, "body"), "it died as the call took over a tab the page opened")
}

// An app_launch with no tab open opens one: a browser that dies as it does says so, and the
// next call does its work.
func TestABrowserDyingAsATabOpensSaysSo(t *testing.T) {
	d := startBrowser(t, "phone")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := d.CloseTab(ctx, 0); err != nil {
		t.Fatal(err)
	}
	killAt(t, d, stepOpen)
	checkDiedSaid(ctx, t, d, "app_launch", d.LaunchApp(ctx, "http://127.0.0.1:1/"), "it died as the call opened a tab")
}

// A screenshot or a get_source whose browser dies as it reads the page said "screenshot:
// ... context canceled" (or "source: ..."), and the next call that the browser had been
// replaced: each now says the browser died, and the next call does its work. A look (the
// console's live screen) says so too, but leaves the notice for the holder's next call.
func TestABrowserDyingAsAReadReadsSaysSo(t *testing.T) {
	d := startBrowser(t, "phone")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	reads := []struct {
		name string
		read func(context.Context) error
	}{
		{"screenshot", func(ctx context.Context) error { _, _, err := d.ScreenshotJPEG(ctx); return err }},
		{"get_source", func(ctx context.Context) error { _, err := d.Source(ctx); return err }},
	}
	for _, r := range reads {
		killAt(t, d, stepRead)
		checkDiedSaid(ctx, t, d, r.name, r.read(ctx), "it died as the call read the page")
	}

	killAt(t, d, stepRead)
	err := reads[0].read(device.Look(ctx))
	t.Logf("a look's screenshot: %v", err)
	if !errors.Is(err, ErrBrowserDied) {
		t.Errorf("a look's screenshot whose browser died: %v, want ErrBrowserDied", err)
	}
	if _, err := d.ForegroundApp(ctx); !errors.Is(err, ErrBrowserReplaced) {
		t.Errorf("the holder's call after a look found the browser dead: %v, want ErrBrowserReplaced (the look told no holder)", err)
	}
}

// A web_close_tab whose browser died as it closed the tab answered nothing wrong (its error
// was context.Canceled, taken for a tab that closed), and the next call that the browser had
// been replaced: it now says the browser died, and the next call does its work.
func TestABrowserDyingAsATabClosesSaysSo(t *testing.T) {
	d := startBrowser(t, "phone")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	killAt(t, d, stepClose)
	checkDiedSaid(ctx, t, d, "web_close_tab", d.CloseTab(ctx, 0), "it died as the call closed the tab")
}

// A web_login_none_ui whose browser died as the page posted the fields said "log in: ... (is
// the login endpoint up, and on the page's origin?)", blaming the endpoint, and the next call
// that the browser had been replaced: it now says the browser died, and the next call does
// its work.
func TestABrowserDyingAsALoginIsPostedSaysSo(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>site</title>`)
	}))
	t.Cleanup(srv.Close)
	d := startBrowser(t, "phone")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := d.LaunchApp(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	killAt(t, d, stepLogin)
	_, err := d.LoginNoUI(ctx, srv.URL+"/login", map[string]string{"user": "u"})
	checkDiedSaid(ctx, t, d, "web_login_none_ui", err, "it died as the page posted the login")
	if err != nil && strings.Contains(err.Error(), "is the login endpoint up") {
		t.Errorf("web_login_none_ui whose browser died blames the endpoint: %v", err)
	}
}
