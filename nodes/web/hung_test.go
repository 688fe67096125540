package web

import (
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// freezeBrowser stops (SIGSTOP) the device's Chromium processes, those whose command line
// names its profile directory (Debian's script and the browser it runs), as `kill -STOP` does.
func freezeBrowser(t *testing.T, d *Driver) {
	t.Helper()
	d.mu.Lock()
	want := "--user-data-dir=" + d.dir
	d.mu.Unlock()
	n := 0
	for pid, p := range processes() {
		if slices.Contains(p.args(), want) {
			if err := syscall.Kill(pid, syscall.SIGSTOP); err == nil {
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no Chromium process names the device's profile directory")
	}
}

// A browser whose Chromium is stopped (kill -STOP) answers nothing. The health check after a
// task timed out on it finds it hung, kills it and starts a new one, as for one that crashed:
// the device comes back online, and the holder's next call is told its browser was replaced.
// A hung browser used to leave the device unhealthy for ever.
func TestHungBrowserIsReplaced(t *testing.T) {
	r := newRecorder(t)
	d := startBrowserWith(t, Options{Serial: "web-hung"})
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Platforms: []device.Platform{android.Platform(), Platform()}})
	f.AddDriver("n1", d)
	state := func() string {
		e, _ := f.Gateway().Client.Device("web-hung")
		return e.State
	}
	farmtest.Eventually(t, 30*time.Second, func() bool { return state() == broker.StateOnline }, "web-hung online")
	c := f.Client("holder")
	call := func(tool string, args map[string]any) (string, bool) {
		args["serial"] = "web-hung"
		res := farmtest.Call(t, c, tool, args)
		return farmtest.Text(res), res.IsError
	}
	if text, failed := call("app_launch", map[string]any{"packageName": r.srv.URL + "/"}); failed {
		t.Fatal(text)
	}

	freezeBrowser(t, d)
	text, failed := call("get_foreground_app", map[string]any{"timeout_ms": 1000})
	if !failed {
		t.Fatalf("get_foreground_app on a stopped browser answered %q", text)
	}
	t.Logf("get_foreground_app on the stopped browser: %s", text)
	var seen []string
	farmtest.Eventually(t, 60*time.Second, func() bool {
		if s := state(); len(seen) == 0 || seen[len(seen)-1] != s {
			seen = append(seen, s)
		}
		return state() == broker.StateOnline && !d.frozen()
	}, "web-hung online again on a new browser")
	t.Logf("states seen: %v", seen)
	text, failed = call("get_foreground_app", map[string]any{})
	if !failed || !strings.Contains(text, "restarted") {
		t.Fatalf("the first call after the hung browser was replaced answered %q; want it told the browser was restarted", text)
	}
	if text, failed := call("get_foreground_app", map[string]any{}); failed || !strings.Contains(text, "about:blank") {
		t.Fatalf("the next call: %q; want the new browser's about:blank", text)
	}
}
