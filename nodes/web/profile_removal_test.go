package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/chromium"
)

// A Close that comes while the device's browser starts (the node stopping as an elastic
// browser starts for its first use) leaves no profile directory: Close waits for the start
// it ended to remove its own. The browser is frozen mid-start, so Close meets it starting.
func TestCloseDuringAStartLeavesNoProfile(t *testing.T) {
	tmp := profilesIn(t)
	d, err := Start(t.Context(), Options{Serial: "web-closed-starting", Profile: mustProfile(t, "phone"), Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	used := make(chan error, 1)
	go func() {
		release, err := d.acquire(context.Background())
		if err == nil {
			release()
		}
		used <- err
	}()
	dir := freezeBrowserIn(t, tmp, "")
	if !d.startPending() {
		t.Fatal("the browser's start was not under way as the device closed")
	}
	if err := d.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	assertNoProfileLeft(t, tmp, dir)
	if err := <-used; err == nil {
		t.Error("the use whose start Close ended got a browser")
	}
}

// A Close that comes while a reset gives the device a new browser for its next holder (a
// lease revoked as the node stops) leaves neither the old profile nor the new one.
func TestCloseDuringAResetLeavesNoProfile(t *testing.T) {
	tmp := profilesIn(t)
	d := startBrowserWith(t, Options{Serial: "web-closed-resetting"})
	old := d.dir
	reset := make(chan error, 1)
	go func() { reset <- d.Reset(context.Background()) }()
	dir := freezeBrowserIn(t, tmp, old)
	if err := d.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	assertNoProfileLeft(t, tmp, old, dir)
	if err := <-reset; err == nil {
		t.Error("the reset Close ended gave the device a browser")
	}
}

// A Close while the page writes its storage as fast as it can (the node stopping under
// load) leaves no profile directory, and no Chromium process that could write one again.
func TestCloseWhileThePageWritesLeavesNoProfile(t *testing.T) {
	tmp := profilesIn(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: strconv.FormatInt(time.Now().UnixNano(), 10), MaxAge: 3600})
		_, _ = w.Write([]byte(`<!doctype html><script>
let n = 0;
const db = indexedDB.open("busy");
db.onupgradeneeded = () => db.result.createObjectStore("s");
setInterval(() => {
  n++;
  localStorage.setItem("k" + (n % 50), "x".repeat(4096) + n);
  document.cookie = "n=" + n + "; max-age=3600";
  if (db.result) db.result.transaction("s", "readwrite").objectStore("s").put("v".repeat(4096), n % 50);
}, 1);
</script>`))
	}))
	defer srv.Close()
	d := startBrowserWith(t, Options{Serial: "web-closed-writing"})
	dir := d.dir
	if err := d.LaunchApp(t.Context(), srv.URL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the page's local storage is on disk", func() bool {
		_, err := os.Stat(filepath.Join(dir, "Default", "Local Storage"))
		return err == nil
	})
	tree := browserTree(processesOn(dir))
	if len(tree) < 3 {
		t.Fatalf("the browser runs %d processes (%v), want its own and its children", len(tree), tree)
	}
	if err := d.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	for pid, started := range tree {
		if f, err := statFields(pid); err == nil && f[19] == started && f[0] != "Z" {
			t.Errorf("the browser's process %d (%s) still runs after Close", pid, f[0])
		}
	}
	assertNoProfileLeft(t, tmp, dir)
}

// browserTree is roots and their descendants, by pid, with their start times.
func browserTree(roots []int) map[int]string {
	tree := map[int]string{}
	for _, pid := range roots {
		if f, err := statFields(pid); err == nil {
			tree[pid] = f[19]
		}
	}
	for grew := true; grew; {
		grew = false
		procs, _ := filepath.Glob("/proc/[0-9]*/stat")
		for _, p := range procs {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			f, err := statFields(pid)
			if err != nil || len(f) < 20 {
				continue
			}
			ppid, _ := strconv.Atoi(f[1])
			if _, in := tree[pid]; !in && tree[ppid] != "" {
				tree[pid], grew = f[19], true
			}
		}
	}
	return tree
}

// profilesIn makes the test's own temporary directory the one profiles go in, and skips
// without Chromium.
func profilesIn(t *testing.T) string {
	t.Helper()
	if _, err := chromium.Find(); err != nil {
		if os.Getenv("CORRAL_REQUIRE_TOOLS") != "" {
			t.Fatalf("%v, and CORRAL_REQUIRE_TOOLS is set", err)
		}
		t.Skip(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	return tmp
}

// freezeBrowserIn waits for a Chromium process on a profile directory in tmp other than
// not, stops it (SIGSTOP) so that its start cannot finish, and returns the directory. The
// test's end kills what is left.
func freezeBrowserIn(t *testing.T, tmp, not string) string {
	t.Helper()
	var dir string
	var pids []int
	waitFor(t, "a browser starts on a new profile", func() bool {
		found, _ := filepath.Glob(filepath.Join(tmp, profilePrefix+"*"))
		for _, f := range found {
			if f != not {
				dir, pids = f, processesOn(f)
				return len(pids) > 0
			}
		}
		return false
	})
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGSTOP)
	}
	t.Cleanup(func() {
		for _, pid := range processesOn(dir) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return dir
}

// processesOn are the processes whose command line names dir: the browser's own (and the
// script that starts it), not its children.
func processesOn(dir string) []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "--user-data-dir="+dir+"\x00") {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			pids = append(pids, pid)
		}
	}
	return pids
}

// assertNoProfileLeft fails when, as Close returns, a profile directory is in tmp or a
// browser still runs on one of dirs.
func assertNoProfileLeft(t *testing.T, tmp string, dirs ...string) {
	t.Helper()
	for _, dir := range dirs {
		if pids := processesOn(dir); len(pids) > 0 {
			t.Errorf("Chromium processes %v still run on %s after Close", pids, dir)
		}
	}
	left, _ := filepath.Glob(filepath.Join(tmp, profilePrefix+"*"))
	for _, dir := range left {
		files := 0
		_ = filepath.WalkDir(dir, func(string, os.DirEntry, error) error { files++; return nil })
		t.Errorf("a profile directory is left after Close: %s (%d entries)", dir, files)
	}
}
