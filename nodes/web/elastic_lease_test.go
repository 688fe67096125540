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

// An elastic browser whose device is leased does not stop for idleness, however long its
// holder thinks between calls: the page it opened is still there. Once the lease ends, the
// unused browser stops.
func TestLeasedElasticBrowserOutlastsIdle(t *testing.T) {
	r := newRecorder(t)
	const serial = "web-thinker"
	d := startBrowserWith(t, Options{Serial: serial, Lazy: true, Idle: 200 * time.Millisecond})
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Platforms: []device.Platform{android.Platform(), Platform()}})
	f.AddDriver("n1", d)
	farmtest.Eventually(t, 30*time.Second, func() bool {
		e, ok := f.Gateway().Client.Device(serial)
		return ok && e.State == broker.StateOnline
	}, "%s online", serial)
	c := f.Client("thinker")
	var held struct{ Lease struct{ Handle string } }
	farmtest.Structured(t, farmtest.MustCall(t, c, "acquire_device", map[string]any{"serial": serial}), &held)
	call := func(tool string, args map[string]any) (string, bool) {
		args["serial"], args["lease"] = serial, held.Lease.Handle
		res := farmtest.Call(t, c, tool, args)
		return farmtest.Text(res), res.IsError
	}
	page := r.srv.URL + "/"
	if text, failed := call("app_launch", map[string]any{"packageName": page}); failed {
		t.Fatal(text)
	}

	// The holder thinks: the idle stopper looks, twice, at a browser unused for longer than idle.
	seen := d.unusedLooks()
	waitFor(t, "two looks at the unused leased browser", func() bool { return d.unusedLooks() >= seen+2 })
	if !d.Running() {
		t.Fatal("the leased browser stopped for idleness")
	}
	if text, failed := call("get_foreground_app", map[string]any{}); failed || !strings.Contains(text, page) {
		t.Fatalf("the holder's call after thinking past --web-idle: %q; want its page %s still open", text, page)
	}

	farmtest.MustCall(t, c, "release_device", map[string]any{"serial": serial, "lease": held.Lease.Handle})
	waitFor(t, "the released, unused browser stopped", func() bool { return !d.Running() })
}

// unusedLooks is how many times the idle stopper found the browser unused for its idle time.
func (d *Driver) unusedLooks() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.unusedSeen
}
