package web

import (
	"strings"
	"testing"
)

// BACK on a tab's first page (about:blank, where a fresh browser's tab began) is the caller's mistake, not the browser's failure: press_button
// BACK, back and go_back answer bad_input (nothing happens) with the way on, through the front
// door.
func TestBackOnTheFirstPageIsBadInput(t *testing.T) {
	r := newRecorder(t)
	d := startBrowserWith(t, Options{Serial: "web-first"})
	call, _ := holdBrowser(t, d, "goer")
	if text, failed := call("app_launch", map[string]any{"packageName": r.srv.URL + "/"}); failed {
		t.Fatal(text)
	}
	if text, failed := call("press_button", map[string]any{"button": "BACK"}); failed { // to the tab's first page
		t.Fatal(text)
	}
	for tool, args := range map[string]map[string]any{
		"press_button": {"button": "BACK"}, "back": {}, "go_back": {},
	} {
		text, failed := call(tool, args)
		if !failed || !strings.Contains(text, "(bad_input)") || !strings.Contains(text, "there is no page to go back to") ||
			!strings.Contains(text, "app_launch") || strings.Contains(text, "driver_error") {
			t.Errorf("%s on the tab's first page: failed %v: %s; want bad_input, no page to go back to, what to do", tool, failed, text)
		}
	}
	if text, failed := call("get_foreground_app", map[string]any{}); failed || !strings.Contains(text, `"about:blank"`) {
		t.Errorf("the tab after BACK on its first page: %s", text)
	}
}
