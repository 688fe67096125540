package web

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// wantShownRedacted fails unless err shows the URL's user with REDACTED for its password,
// the word the rest of Corral hides a secret with, and never the password or url's xxxxx.
func wantShownRedacted(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	if s := err.Error(); !strings.Contains(s, "user:REDACTED@") || strings.Contains(s, "hunter2") || strings.Contains(s, "xxxxx") {
		t.Errorf("error %q, want the URL with user:REDACTED@ and no password", s)
	}
}

// A URL a browser device refuses is shown with its password as REDACTED, in the error and in
// the hint's whole URL; a user:pw@host without a scheme (which parses as scheme "user") too,
// and one url.Parse refuses (an invalid escape), which was shown as typed.
func TestRefusedURLsShowREDACTED(t *testing.T) {
	d := &Driver{serial: "web-shown"}
	for _, raw := range []string{"ftp://user:hunter2@x.example/", "user:hunter2@x.example", "user:hunter2@x.example/a?b=c",
		"https://user:hunter2%zz@x.example/"} {
		_, err := d.pageURL("open", raw, "a browser device opens http:// and https:// URLs")
		if !errors.Is(err, ErrBadURL) {
			t.Fatalf("pageURL(%q): %v, want ErrBadURL", raw, err)
		}
		wantShownRedacted(t, err)
	}
}

// A page that fails to open is named in the error with its password as REDACTED.
func TestFailedOpenShowsREDACTED(t *testing.T) {
	d := startBrowser(t, "phone")
	release := make(chan struct{}) // the page never loads until the test ends
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	wantShownRedacted(t, d.LaunchApp(ctx, "http://user:hunter2@"+strings.TrimPrefix(srv.URL, "http://")+"/never"))
}
