package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

// restlessSite serves /reload, a page that reloads itself once it has loaded, and
// /busy, a page whose script never ends once it has told /started (busy receives then).
func restlessSite(t *testing.T) (base string, busy <-chan struct{}) {
	t.Helper()
	started := make(chan struct{}, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("/reload", func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(300 * time.Millisecond) // a server that takes a moment, as real ones do
		fmt.Fprint(w, `<!doctype html><title>reload</title><p>again</p><script>addEventListener("load", () => setTimeout(() => location.reload(), 50))</script>`)
	})
	mux.HandleFunc("/busy", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>busy</title><p>busy</p>
<script>const x = new XMLHttpRequest(); x.open("GET", "/started", false); x.send(); for (;;) {}</script>`)
	})
	mux.HandleFunc("/started", func(http.ResponseWriter, *http.Request) {
		select {
		case started <- struct{}{}:
		default:
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL, started
}

// A page that reloads itself without end (here every 350 ms) is never captured: Chromium
// answers no screenshot of it. The call waited out its deadline and said "screenshot:
// context canceled"; it now gives up after two tries of a few seconds and says why, and what
// to do. The tab is listed at its URL all the while.
func TestScreenshotsOfAPageThatReloadsItself(t *testing.T) {
	d := startBrowser(t, "phone")
	base, _ := restlessSite(t)
	page := base + "/reload"
	if err := d.LaunchApp(t.Context(), page); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	start := time.Now()
	_, _, err := d.ScreenshotJPEG(ctx)
	took := time.Since(start)
	t.Logf("a screenshot of a page that reloads itself: %v, after %s", err, took.Round(time.Millisecond))
	if err != nil && (!strings.Contains(err.Error(), "reloads itself without end") || !strings.Contains(err.Error(), "app_launch another URL") ||
		took > 3*cmdWait) {
		t.Errorf("a screenshot of a page that reloads itself: %v after %s; want it to say why within %s", err, took, 3*cmdWait)
	}
	for range 5 {
		front, err := d.ForegroundApp(ctx)
		if err != nil || front != page {
			t.Fatalf("in front of a page that reloads itself: %q (%v), want %s", front, err, page)
		}
	}
}

// A launch of a page whose script hangs fails, and the tab cannot go back (the page does not
// let go): it lists an empty URL for ever. get_foreground_app said "nothing in front" and
// list_packages [""] after ten seconds; both now say the URL of the page the tab shows within
// a few (the history said about:blank, where the launch's undo sent the tab: it never gets
// there), and a screenshot says what happened and what to do, not "context canceled". The
// launch ends once the page's script runs, not after a time that a loaded machine's Chromium
// may take to get there.
func TestATabStuckBetweenPagesShowsItsLastURL(t *testing.T) {
	d := startBrowser(t, "phone")
	base, busy := restlessSite(t)
	page := base + "/busy"
	lctx, cancel := context.WithCancel(t.Context())
	go func() {
		select {
		case <-busy:
			cancel()
		case <-lctx.Done():
		}
	}()
	err := d.LaunchApp(lctx, page)
	cancel()
	if err == nil {
		t.Fatal("the launch of a page whose script hangs succeeded")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for _, what := range []string{"in front", "in front again"} {
		start := time.Now()
		front, err := d.ForegroundApp(ctx)
		if took := time.Since(start); err != nil || front != page || took > settleWait+3*time.Second {
			t.Errorf("%s after the failed launch: %q (%v) in %s, want %s within %s", what, front, err, took, page, settleWait)
		}
	}
	if pkgs, err := d.ListPackages(ctx); err != nil || !slices.Equal(pkgs, []string{page}) {
		t.Errorf("the tabs after the failed launch: %q (%v), want [%s]", pkgs, err, page)
	}
	sctx, cancel := context.WithTimeout(t.Context(), 12*time.Second)
	defer cancel()
	start := time.Now()
	_, _, err = d.ScreenshotJPEG(sctx)
	t.Logf("screenshot: %v in %s", err, time.Since(start))
	if err == nil || !strings.Contains(err.Error(), "did not") || !strings.Contains(err.Error(), "app_launch another URL") ||
		strings.Contains(err.Error(), "context canceled") {
		t.Errorf("a screenshot of a page whose script hangs: %v, want it said the page did not answer, and what to do", err)
	}
}
