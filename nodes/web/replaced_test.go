package web

import (
	"strings"
	"testing"
)

// The holder of a browser whose Chromium is killed under its lease is told, by its next call's
// answer, that the browser was replaced and its pages, cookies and storage are gone; the lease
// holds, and the call after works on the new browser.
func TestHolderIsToldTheBrowserWasReplaced(t *testing.T) {
	r := newRecorder(t)
	d := startBrowserWith(t, Options{Serial: "web-held"})
	call, _ := holdBrowser(t, d, "holder")
	if text, failed := call("app_launch", map[string]any{"packageName": r.srv.URL + "/"}); failed {
		t.Fatal(text)
	}

	killBrowser(t, d)
	text, failed := call("get_foreground_app", map[string]any{})
	if !failed || !strings.Contains(text, "the browser had died and was restarted: its tabs, cookies and storage are gone") ||
		!strings.Contains(text, "app_launch") {
		t.Fatalf("the holder's first call after its browser was killed answered %q; want it told the browser was replaced", text)
	}
	if text, failed := call("get_foreground_app", map[string]any{}); failed || !strings.Contains(text, "about:blank") {
		t.Fatalf("the holder's next call: %q; want the new browser's about:blank under the same lease", text)
	}
}
