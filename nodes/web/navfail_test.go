package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// An app_launch whose browser is killed while the page loads, or whose call is aborted, says
// so, and that the URL was not at fault; one whose deadline passed says so, and to give it
// more time: each used to advise "check the URL, and that the site answers".
func TestLaunchCutShortSaysWhyNotTheURL(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // a page that takes longer than the call
	}))
	t.Cleanup(srv.Close)
	d := startBrowser(t, "phone")
	check := func(what string, err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "the URL was not at fault") ||
			strings.Contains(err.Error(), "check the URL") {
			t.Errorf("app_launch %s: %v; want it to say %q, and that the URL was not at fault", what, err, want)
		}
	}

	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(time.Second, cancel)
	check("aborted", d.LaunchApp(ctx, srv.URL+"/slow"), "the call was aborted")

	late, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	err := d.LaunchApp(late, srv.URL+"/slow")
	if err == nil || !strings.Contains(err.Error(), "had not loaded when the call's deadline passed") ||
		!strings.Contains(err.Error(), "longer timeout_ms") || strings.Contains(err.Error(), "check the URL") {
		t.Errorf("app_launch past its deadline: %v; want it to say the page had not loaded in time, and to give it a longer timeout_ms", err)
	}

	d.mu.Lock()
	dir := d.dir
	d.mu.Unlock()
	time.AfterFunc(time.Second, func() { endBrowserOn(dir) }) // kill -9 of Chromium and its children
	ctx, cancel = context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	check("with its browser killed", d.LaunchApp(ctx, srv.URL+"/slow"), "the browser died")
}
