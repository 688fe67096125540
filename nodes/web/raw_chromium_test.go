package web

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/chromium"
	"github.com/corral-farm/corral/internal/logtest"
)

// A test that starts a Chromium itself (not through a Driver, whose start tries again on its
// own: runStart) met Chromium's crash at start-up under the whole suite's load: "Chromium
// ended before it wrote in …: … Failed to connect to the bus … Segmentation fault" after
// 0.22 s. startRawChromium starts it again when it dies before it wrote its DevTools address.

// rawChromiumTries bounds the starts of a test's own Chromium that keeps dying at start-up.
const rawChromiumTries = 3

// startRawChromium starts chrome headless on the profile directory dir, as a node does, and
// waits (a minute at most: the whole suite loads the machine) until it has written its
// DevTools address and its profile; it returns the browser's pid and how many starts that
// took. One that dies before it wrote its address is started again on dir emptied, twice at
// most, and the test's log says why; one that dies after fails the test. The test's end kills
// what is left of each.
func startRawChromium(t *testing.T, chrome, dir string) (pid, tries int) {
	t.Helper()
	for tries = 1; ; tries++ {
		pid, died := startRawChromiumOnce(t, chrome, dir)
		if died == "" {
			return pid, tries
		}
		if tries == rawChromiumTries {
			t.Fatalf("Chromium died before it wrote its DevTools address, %d times in a row; the last printed: %s", tries, died)
		}
		t.Logf("Chromium died before it wrote its DevTools address (a crash at start-up, as under the whole suite's load); starting it again on %s emptied. It printed: %s", dir, died)
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
}

// startRawChromiumOnce is one start of startRawChromium: the browser's pid once it wrote its
// address and its profile, or what it printed when it died before it wrote its address.
func startRawChromiumOnce(t *testing.T, chrome, dir string) (pid int, died string) {
	t.Helper()
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
	addressed := func() bool {
		_, err := os.Stat(filepath.Join(dir, "DevToolsActivePort"))
		return err == nil || stderr.Line("DevTools listening on") != ""
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) { // polling a condition
		if _, err := os.Stat(filepath.Join(dir, "Default")); err == nil && addressed() && len(processesOn(dir)) > 0 {
			return browser.Process.Pid, ""
		}
		select {
		case <-reaped: // Wait has copied all it printed
			if addressed() {
				t.Fatalf("Chromium ended after it wrote its DevTools address, before it wrote in %s: %s", dir, stderr.String())
			}
			return 0, fmt.Sprintf("%v: %s", browser.ProcessState, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("Chromium did not write in %s within a minute: %s", dir, stderr.String())
		}
	}
}

// A test's own Chromium that dies at start-up (here a script that kills itself with SIGSEGV,
// as Chromium crashed, on its first start) is started again, and the test goes on with the
// browser of its second start.
func TestRawChromiumThatDiesAtStartIsStartedAgain(t *testing.T) {
	tmp := profilesIn(t)
	chrome, err := chromium.Find()
	if err != nil {
		t.Fatal(err)
	}
	starts := filepath.Join(tmp, "starts")
	script := filepath.Join(tmp, "dies-once")
	body := fmt.Sprintf("#!/bin/sh\necho >> %q\nif [ \"$(wc -l < %q)\" -le 1 ]; then kill -SEGV $$; fi\nexec %q \"$@\"\n", starts, starts, chrome)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := makeProfileDir(t, tmp, thisProcess())

	pid, tries := startRawChromium(t, script, dir)

	data, _ := os.ReadFile(starts)
	if n := strings.Count(string(data), "\n"); tries != 2 || n != 2 {
		t.Errorf("startRawChromium says %d starts, the script counted %d; want 2 (one death, one browser)", tries, n)
	}
	if f, err := statFields(pid); err != nil || f[0] == "Z" {
		t.Errorf("the browser of the second start, pid %d, does not run (%v)", pid, err)
	}
}
