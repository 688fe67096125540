package web

import (
	"strings"
	"testing"
	"time"
)

// An elastic browser whose device is leased does not stop for idleness, however long its
// holder thinks between calls: the page it opened is still there. Once the lease ends, the
// unused browser stops.
func TestLeasedElasticBrowserOutlastsIdle(t *testing.T) {
	r := newRecorder(t)
	d := startBrowserWith(t, Options{Serial: "web-thinker", Lazy: true, Idle: 200 * time.Millisecond})
	call, release := holdBrowser(t, d, "thinker")
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

	release()
	waitFor(t, "the released, unused browser stopped", func() bool { return !d.Running() })
}

// unusedLooks is how many times the idle stopper found the browser unused for its idle time.
func (d *Driver) unusedLooks() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.unusedSeen
}
