package web

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// failingSite serves /page, a page with a button, and three launches that fail: /drop answers
// no page (the connection dropped), /hang never answers (the call's deadline ends it) and
// refused, a port nothing listens on. gaveUp receives when the browser drops a /hang request.
func failingSite(t *testing.T) (base, refused string, gaveUp <-chan struct{}) {
	t.Helper()
	dropped := make(chan struct{}, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page":
			fmt.Fprint(w, `<!doctype html><title>page</title><button id="mark">Mark</button>`)
		case "/drop":
			c, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				c.Close()
			}
		case "/hang":
			<-r.Context().Done()
			dropped <- struct{}{}
		}
	}))
	t.Cleanup(srv.Close)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused = "http://" + l.Addr().String() + "/"
	l.Close()
	return srv.URL, refused, dropped
}

// An app_launch that fails (no page answered, the connection refused, its deadline) leaves the
// browser device as it was: a tab it opened is closed again, a tab that was open is back on its
// page, and app_terminate of the URL answers that no tab shows it, as for a URL never launched.
// The launch used to leave the tab on the failed URL: the page it showed was lost, and
// app_terminate "terminated" a launch that never happened.
func TestFailedLaunchLeavesTheTabsAsTheyWere(t *testing.T) {
	d := startBrowser(t, "phone")
	base, refused, gaveUp := failingSite(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	run := func(ctx context.Context, tool, url string) error {
		_, err := tools.DefaultOps()[tool].Run(ctx, &tools.Task{Driver: d, Args: []byte(`{"packageName":"` + url + `"}`)})
		return err
	}
	tabs := func() []string {
		t.Helper()
		pkgs, err := d.ListPackages(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return pkgs
	}
	page := base + "/page"
	failing := []string{base + "/drop", refused, base + "/hang"}
	launchFails := func(url string, want []string) {
		t.Helper()
		lctx, cancel := context.WithTimeout(ctx, 4*time.Second) // /hang's deadline
		defer cancel()
		err := run(lctx, "app_launch", url)
		if err == nil || !strings.Contains(err.Error(), "the device is as it was") {
			t.Errorf("app_launch %s: %v, want a failure that left the device as it was", url, err)
		}
		if got := tabs(); !slices.Equal(got, want) {
			t.Errorf("after app_launch %s failed, the tabs are %q, want %q", url, got, want)
		}
		err = run(ctx, "app_terminate", url)
		if tools.ErrorCode(err) != broker.CodeBadInput || !strings.Contains(err.Error(), "none shows") {
			t.Errorf("app_terminate %s after its launch failed: %v, want bad_input: no tab shows it", url, err)
		}
	}

	// A tab open on a page: it stays, on that page.
	if err := run(ctx, "app_launch", page); err != nil {
		t.Fatal(err)
	}
	for _, url := range failing {
		launchFails(url, []string{page})
		if front, err := d.ForegroundApp(ctx); err != nil || front != page {
			t.Errorf("after app_launch %s failed, %q (%v) is in front, want %s", url, front, err, page)
		}
		if err := d.TapSelector(ctx, "#mark"); err != nil {
			t.Errorf("after app_launch %s failed, the page's button: %v", url, err)
		}
	}
	select { // stopped, not left loading in the tab to arrive later
	case <-gaveUp:
	case <-ctx.Done():
		t.Fatal("the browser never gave up the /hang request")
	}

	// No tab open: the tab app_launch opened for it is closed again.
	if err := run(ctx, "app_terminate", page); err != nil {
		t.Fatal(err)
	}
	for _, url := range failing {
		launchFails(url, []string{})
	}
}
