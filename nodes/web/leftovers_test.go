package web

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/logtest"
)

// helperNodeEnv makes the test binary a node with one browser device (TestHelperBrowserNode):
// it prints the device's profile directory and runs until it is killed.
const helperNodeEnv = "CORRAL_WEB_HELPER_NODE"

// A node killed with SIGKILL leaves its browser's profile directory; the next browser device to
// start removes it, and leaves alone the one of a node still running, a directory whose pid a
// later process took, one of another host and one of an older version (whose owner cannot be
// told).
func TestKilledNodesProfilesAreRemovedAtStart(t *testing.T) {
	startBrowserWith(t, Options{}) // skips without Chromium
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	killed, killedDir := startHelperNode(t)
	_, runningDir := startHelperNode(t)
	if err := killed.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = killed.Wait() // reaped, as a killed node is by whatever ran it
	awaitBrowserGone(t, killedDir)
	if _, err := os.Stat(killedDir); err != nil {
		t.Fatalf("the killed node's profile is not there to be left over: %v", err)
	}
	self := thisProcess()
	reused := makeProfileDir(t, tmp, owner{pid: self.pid, started: self.started + "1", host: self.host})
	elsewhere := makeProfileDir(t, tmp, owner{pid: 1 << 22, started: "5", host: "another-host"})
	older := filepath.Join(tmp, profilePrefix+"2727814362")
	if err := os.Mkdir(older, 0o700); err != nil {
		t.Fatal(err)
	}

	logs := &logtest.Buffer{}
	d := startBrowserWith(t, Options{Serial: "web-after-kill", Log: slog.New(slog.NewTextHandler(logs, nil))})
	if !strings.Contains(logs.String(), "removed a browser profile a node that ended left\" device=web-after-kill dir="+killedDir) {
		t.Errorf("the log does not say the killed node's profile was removed: %q", logs.String())
	}
	for _, gone := range []string{killedDir, reused} {
		if _, err := os.Stat(gone); !os.IsNotExist(err) {
			t.Errorf("%s is still there after a browser started: %v", gone, err)
		}
	}
	for _, kept := range []string{runningDir, elsewhere, older, d.dir} {
		if _, err := os.Stat(kept); err != nil {
			t.Errorf("%s was removed: %v", kept, err)
		}
	}
}

// startHelperNode starts the test binary as a node with one browser device, and returns it and
// its profile directory; the test ends it.
func startHelperNode(t *testing.T) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperBrowserNode$")
	cmd.Env = append(os.Environ(), helperNodeEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var dir string
	t.Cleanup(func() { // before TMPDIR's removal, which the browser's processes must not race
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if dir != "" {
			awaitBrowserGone(t, dir)
		}
	})
	lines := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			if dir, ok := strings.CutPrefix(s.Text(), "profile "); ok {
				lines <- dir
			}
		}
		close(lines)
	}()
	select {
	case got, ok := <-lines:
		if !ok {
			t.Fatal("the helper node ended without starting its browser")
		}
		dir = got
		return cmd, dir
	case <-time.After(90 * time.Second):
		t.Fatal("the helper node started no browser in 90 s")
	}
	return nil, ""
}

// awaitBrowserGone waits until no process runs on the profile directory dir: a killed node's
// Chromium processes end a moment after it.
func awaitBrowserGone(t *testing.T, dir string) {
	t.Helper()
	waitFor(t, "the Chromium processes on "+dir+" ended", func() bool {
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), dir) {
				return false
			}
		}
		return true
	})
}

// makeProfileDir makes a profile directory as o would have.
func makeProfileDir(t *testing.T, in string, o owner) string {
	t.Helper()
	dir, err := os.MkdirTemp(in, profilePrefix+o.String()+"-")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestHelperBrowserNode is the node of startHelperNode, not a test of its own.
func TestHelperBrowserNode(t *testing.T) {
	if os.Getenv(helperNodeEnv) == "" {
		t.Skip("the helper node of TestKilledNodesProfilesAreRemovedAtStart")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	d, err := Start(ctx, Options{Serial: "web-helper", Profile: mustProfile(t, "phone")})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("profile %s\n", d.dir)
	<-t.Context().Done() // until killed
}

// A profile directory's name gives back the owner written into it; names of anything else,
// an older version's included, give none.
func FuzzOwnerOf(f *testing.F) {
	f.Add(profilePrefix + thisProcess().String() + "-123")
	f.Add(profilePrefix + "2727814362")
	f.Add(profilePrefix + "12.34@host-with-dashes-99")
	f.Add("corral-web-.@-")
	if _, ok := ownerOf(profilePrefix + "2727814362"); ok {
		f.Error("an older version's directory was given an owner")
	}
	f.Fuzz(func(t *testing.T, name string) {
		o, ok := ownerOf(name)
		if !ok {
			return
		}
		if o.pid <= 0 || o.started == "" || o.host == "" {
			t.Fatalf("%q gave an owner with a part missing: %+v", name, o)
		}
		if back, ok := ownerOf(profilePrefix + o.String() + "-1"); !ok || back != o {
			t.Fatalf("%q gave %+v, whose name gives %+v (%v)", name, o, back, ok)
		}
	})
}
