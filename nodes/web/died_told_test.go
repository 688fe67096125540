package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// An app_launch whose browser was killed as the page loaded says the browser died and that
// the next call starts a new one: the next call used to answer that the browser had been
// replaced and do nothing. It now starts the new browser and does its work: here, the launch
// again.
func TestTheCallAfterALaunchWhoseBrowserDiedDoesItsWork(t *testing.T) {
	loading := make(chan struct{}, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("/slow", func(_ http.ResponseWriter, r *http.Request) {
		select {
		case loading <- struct{}{}:
		default:
		}
		<-r.Context().Done()
	})
	mux.HandleFunc("/page", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>page</title><p>here`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	d := startBrowser(t, "phone")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	answer := make(chan error, 1)
	go func() { answer <- d.LaunchApp(ctx, srv.URL+"/slow") }()
	select {
	case <-loading:
	case err := <-answer:
		t.Fatalf("app_launch answered before its page was asked for: %v", err)
	}
	killChromium(t, d)
	err := <-answer
	t.Logf("app_launch: %v", err)
	if !errors.Is(err, ErrBrowserDied) || !strings.Contains(err.Error(), "the next call starts a new browser") {
		t.Fatalf("app_launch whose browser was killed: %v; want it to say the browser died and the next call starts a new one", err)
	}

	if err := d.LaunchApp(ctx, srv.URL+"/page"); err != nil {
		t.Errorf("the app_launch after the one whose browser died: %v; want it to start a new browser and open the page", err)
	}
	if front, err := d.ForegroundApp(ctx); err != nil || front != srv.URL+"/page" {
		t.Errorf("after it, the front tab shows %q (%v), want %s", front, err, srv.URL+"/page")
	}
}

// A death a look (a screenshot of the console's live screen) found first, leaving the notice
// for the next call, and that a call's answer told after, is not told again: the next call
// works.
func TestADeathToldAfterAScreenshotFoundItIsNotToldAgain(t *testing.T) {
	d := startBrowser(t, "phone")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dying := d.browserCtx()
	killChromium(t, d)
	waitFor(t, "the killed browser seen as crashed", d.crashed)
	if _, _, err := d.ScreenshotJPEG(ctx); !errors.Is(err, ErrBrowserReplaced) {
		t.Fatalf("a screenshot after the kill: %v, want ErrBrowserReplaced", err)
	}
	d.toldDied(dying) // as the call the browser died under answers ErrBrowserDied, late
	if front, err := d.ForegroundApp(ctx); err != nil || front != "about:blank" {
		t.Errorf("the call after the told death: %q (%v), want the new browser's about:blank", front, err)
	}
}
