package web

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// A call whose deadline passed before the browser was ready for it (here: the deadline had
// passed as it came, and it passed while another call held the browser's start) said
// "start: waiting for the browser's start: context deadline exceeded". It now says that
// nothing ran, and to give a longer timeout_ms.
func TestACallPastItsDeadlineBeforeTheBrowserIsReadySaysSo(t *testing.T) {
	d := startBrowser(t, "phone")
	want := func(what string, err error) {
		t.Helper()
		t.Logf("%s: %v", what, err)
		if err == nil || !strings.Contains(err.Error(), "deadline passed before the browser was ready") ||
			!strings.Contains(err.Error(), "longer timeout_ms") {
			t.Errorf("%s: %v; want it to say the deadline passed before the browser was ready, and to give a longer timeout_ms", what, err)
		}
	}
	past, cancel := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
	defer cancel()
	want("a tap whose deadline had passed", d.Tap(past, device.Point{X: 10, Y: 10}, 0))

	if err := d.launching.lock(t.Context()); err != nil { // as a start, stop or reset for another call
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	err := d.Tap(short, device.Point{X: 10, Y: 10}, 0)
	d.launching.unlock()
	want("a tap whose deadline passed while another call held the browser", err)
}
