package web

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// The holder of a browser whose Chromium is killed under its lease is told, by its next call's
// answer, that the browser was replaced and its pages, cookies and storage are gone; the lease
// holds, and the call after works on the new browser.
func TestHolderIsToldTheBrowserWasReplaced(t *testing.T) {
	r := newRecorder(t)
	const serial = "web-held"
	d := startBrowserWith(t, Options{Serial: serial})
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Platforms: []device.Platform{android.Platform(), Platform()}})
	f.AddDriver("n1", d)
	farmtest.Eventually(t, 30*time.Second, func() bool {
		e, ok := f.Gateway().Client.Device(serial)
		return ok && e.State == broker.StateOnline
	}, "%s online", serial)
	c := f.Client("holder")
	var held struct{ Lease struct{ Handle string } }
	farmtest.Structured(t, farmtest.MustCall(t, c, "acquire_device", map[string]any{"serial": serial}), &held)
	call := func(tool string, args map[string]any) (string, bool) {
		args["serial"], args["lease"] = serial, held.Lease.Handle
		res := farmtest.Call(t, c, tool, args)
		return farmtest.Text(res), res.IsError
	}
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
