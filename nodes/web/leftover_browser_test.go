package web

import (
	"log/slog"
	"os"
	"testing"

	"github.com/corral-farm/corral/internal/chromium"
)

// A killed node's Chromium can outlive it (Debian's chromium-headless-shell is a script that
// dies with the node while the browser it started runs on, writing in the profile): leftover
// removal ends that browser, and all its processes, before it removes the directory.
func TestLeftoverRemovalEndsTheKilledNodesBrowser(t *testing.T) {
	tmp := profilesIn(t)
	chrome, err := chromium.Find()
	if err != nil {
		t.Fatal(err)
	}
	self := thisProcess()
	killedNode := owner{pid: self.pid, started: self.started + "1", host: self.host} // its pid since taken by this test
	dir := makeProfileDir(t, tmp, killedNode)
	startRawChromium(t, chrome, dir) // again if it dies at start-up, as under the whole suite's load
	tree := browserTree(processesOn(dir))

	removeLeftovers(slog.New(slog.DiscardHandler), self)

	for pid, started := range tree {
		if alive(pid, started) {
			t.Errorf("the killed node's browser process %d still runs after its leftover was removed", pid)
		}
	}
	for _, left := range []string{dir, dir + ".gone"} {
		if _, err := os.Stat(left); !os.IsNotExist(err) {
			t.Errorf("%s is still there after leftover removal (%v)", left, err)
		}
	}
}
