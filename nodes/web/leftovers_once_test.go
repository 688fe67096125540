package web

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/corral-farm/corral/internal/logtest"
)

// The browser devices of a node all look for leftovers as they start, at once: each leftover
// profile is removed and logged once, not once per device.
func TestEachLeftoverIsLoggedOnce(t *testing.T) {
	tmp := profilesIn(t)
	self := thisProcess()
	dead := owner{pid: self.pid, started: self.started + "1", host: self.host} // the pid, used again
	var left []string
	for range 20 {
		dir := makeProfileDir(t, tmp, dead)
		if err := os.MkdirAll(filepath.Join(dir, "Default", "Local Storage"), 0o700); err != nil {
			t.Fatal(err)
		}
		left = append(left, dir)
	}
	logs := &logtest.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			d, err := Start(t.Context(), Options{Serial: "web-0" + string(rune('1'+i)), Profile: mustProfile(t, "phone"), Lazy: true, Log: log})
			if err != nil {
				t.Error(err)
				return
			}
			_ = d.Close()
		})
	}
	wg.Wait()
	for _, dir := range left {
		if n := strings.Count(logs.String(), "dir="+dir+" "); n != 1 {
			t.Errorf("%s is logged removed %d times, want once", dir, n)
		}
	}
	if rest, _ := filepath.Glob(filepath.Join(tmp, profilePrefix+"*")); len(rest) > 0 {
		t.Errorf("left after the devices started: %v", rest)
	}
}

// A leftover is claimed by one call alone: the next finds it gone.
func TestALeftoverIsClaimedOnce(t *testing.T) {
	tmp := t.TempDir()
	dir := makeProfileDir(t, tmp, owner{pid: 1, started: "1", host: "h"})
	claimed, ok := claimLeftover(dir)
	if !ok {
		t.Fatalf("the first claim of %s failed", dir)
	}
	if again, ok := claimLeftover(dir); ok {
		t.Fatalf("%s was claimed twice (%s, then %s)", dir, claimed, again)
	}
	if o, ok := ownerOf(filepath.Base(claimed)); !ok || o.pid != 1 {
		t.Errorf("the claimed name %s lost its owner (%+v, %v): a failed removal would never be tried again", claimed, o, ok)
	}
}
