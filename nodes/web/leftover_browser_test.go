package web

import (
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/chromium"
	"github.com/corral-farm/corral/internal/logtest"
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
	args := []string{"--headless", "--remote-debugging-port=0", "--user-data-dir=" + dir, "about:blank"}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	browser := exec.Command(chrome, args...)
	var stderr logtest.Buffer
	browser.Stderr = &stderr
	if err := browser.Start(); err != nil {
		t.Fatal(err)
	}
	reaped := make(chan struct{})
	go func() { _ = browser.Wait(); close(reaped) }() // so that it ends, not lingers a zombie
	t.Cleanup(func() {
		for pid := range browserTree([]int{browser.Process.Pid}) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		<-reaped
	})
	// A start under a loaded machine (the whole suite at once) may take longer than waitFor's
	// 10 s: wait for the browser to write in its profile, or to end, which fails at once.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) { // polling a condition
		if _, err := os.Stat(filepath.Join(dir, "Default")); err == nil && len(processesOn(dir)) > 0 {
			break
		}
		select {
		case <-reaped:
			t.Fatalf("Chromium ended before it wrote in %s: %s", dir, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("Chromium did not write in %s within a minute: %s", dir, stderr.String())
		}
	}
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
