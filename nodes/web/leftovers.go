package web

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A node killed with SIGKILL leaves its browsers' profile directories behind: Close never ran
// (Chromium dies with the node, by Pdeathsig). So each directory's name says whose it is, the
// node's process (its pid and start time) and host, and a browser device that starts removes
// those whose process has ended, never one of a process still running.

// profilePrefix starts the name of every profile directory, in os.TempDir().
const profilePrefix = "corral-web-"

// owner is the process that made a profile directory, as the directory's name says:
// corral-web-<pid>.<started>@<host>-<random>.
type owner struct {
	pid     int
	started string // the process's start time, from /proc; "0" where there is no /proc
	host    string
}

func (o owner) String() string { return fmt.Sprintf("%d.%s@%s", o.pid, o.started, o.host) }

// thisProcess is the owner of the directories this process makes.
func thisProcess() owner {
	pid := os.Getpid()
	started, err := processStart(pid)
	if err != nil {
		started = "0"
	}
	return owner{pid: pid, started: started, host: hostname()}
}

// hostname is the host's name as a directory name may carry it.
func hostname() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "localhost"
	}
	return strings.Map(func(r rune) rune {
		if r == '.' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, h)
}

// ownerOf reads the owner from a profile directory's name; false for any other name (an
// older version's corral-web-<random> among them: whose it is cannot be told).
func ownerOf(name string) (owner, bool) {
	rest, ok := strings.CutPrefix(name, profilePrefix)
	if i := strings.LastIndexByte(rest, '-'); ok && i > 0 {
		rest = rest[:i] // MkdirTemp's random part
	} else {
		return owner{}, false
	}
	id, host, ok := strings.Cut(rest, "@")
	pidText, started, ok2 := strings.Cut(id, ".")
	pid, err := strconv.Atoi(pidText)
	if !ok || !ok2 || err != nil || pid <= 0 || started == "" || host == "" {
		return owner{}, false
	}
	return owner{pid: pid, started: started, host: host}, true
}

// gone says whether o's process has ended, as self (this process) can tell: only one of this
// host is judged; with /proc, no process has its pid or one that started at another time does
// (the pid was used again); without, no process has its pid.
func (o owner) gone(self owner) bool {
	if o.host != self.host {
		return false
	}
	if self.started != "0" {
		started, err := processStart(o.pid)
		if err != nil {
			return errors.Is(err, fs.ErrNotExist)
		}
		return started != o.started
	}
	p, err := os.FindProcess(o.pid)
	if err != nil {
		return false
	}
	return errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone)
}

// processStart is when process pid started, in clock ticks since boot: the 22nd field of
// /proc/PID/stat.
func processStart(pid int) (string, error) {
	f, err := statFields(pid)
	if err != nil {
		return "", err
	}
	if len(f) < 20 {
		return "", fmt.Errorf("/proc/%d/stat has %d fields after the command, want 20 or more", pid, len(f))
	}
	return f[19], nil
}

// statFields are the fields of /proc/PID/stat after the command's closing parenthesis (the
// state first), which a command's own spaces and parentheses cannot shift.
func statFields(pid int) ([]string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, fmt.Errorf("/proc/%d/stat has no command in parentheses", pid)
	}
	return strings.Fields(s[i+1:]), nil
}

// removeLeftovers removes the profile directories in os.TempDir() whose process has ended
// without removing them (a node killed), the browser processes still running on one ended
// first, and says which in log: each once, though every browser device of a node runs this
// as it starts (claimLeftover).
func removeLeftovers(log *slog.Logger, self owner) {
	dir := os.TempDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		log.Warn("cannot look for browser profiles a killed node left; they stay", "dir", dir, "err", err)
		return
	}
	for _, e := range entries {
		o, ok := ownerOf(e.Name())
		if !ok || !e.IsDir() || !o.gone(self) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		// Its browser may outlive it (Debian's script dies with the node, the Chromium it
		// started does not) and write on: end it first, on the name its command line has.
		endBrowserOn(path)
		claimed, ok := claimLeftover(path)
		if !ok {
			continue // another device of this node (or another node) removes it
		}
		if err := removeSettled(claimed); err != nil {
			log.Warn("cannot remove a browser profile a killed node left; remove it by hand", "dir", claimed, "err", err)
			continue
		}
		log.Info("removed a browser profile a node that ended left", "dir", path, "pid", o.pid)
	}
}

// claimLeftover renames a leftover profile directory for this call alone to remove, and
// returns its new path; false when another call took it first. The new name keeps the owner,
// so a removal that fails is tried again at the next start.
func claimLeftover(path string) (string, bool) {
	claimed := path + ".gone"
	err := os.Rename(path, claimed)
	switch {
	case err == nil:
		return claimed, true
	case errors.Is(err, fs.ErrNotExist):
		return "", false
	default: // a .gone of an earlier failed removal is in the way: remove it as it is
		return path, true
	}
}

// removeSettled removes dir, trying again for a little while: the dead node's Chromium
// processes end a moment after it, and one still writing makes a removal fail.
func removeSettled(dir string) error {
	var err error
	for wait := 50 * time.Millisecond; wait < 2*time.Second; wait *= 2 {
		if err = os.RemoveAll(dir); err == nil {
			return nil
		}
		time.Sleep(wait)
	}
	return err
}

// removeProfile removes the profile directory of a browser that was stopped: its processes
// first (Chromium's children outlive the browser's own for a moment, and write in the
// directory meanwhile: a removal before they end leaves files, or sees the directory made
// again), then the directory, settled. A removal that still fails is a warning naming it.
func removeProfile(log *slog.Logger, dir string) error {
	endBrowserOn(dir)
	if err := removeSettled(dir); err != nil {
		log.Warn("cannot remove a browser profile; remove it by hand", "dir", dir, "err", err)
		return fmt.Errorf("removing the browser profile %s: %w", dir, err)
	}
	return nil
}

// endBrowserOn ends the processes of the browser on the profile directory dir and waits until
// they are gone: Chromium's own process (its command line names dir, as does the script
// Debian starts it by, which does not exec it) and their descendants, which do not name it
// and outlive the browser for a moment, writing (the GPU process its caches, the network
// service its cookies). Each is stopped as it is found, so that none forks a child the walk
// misses, until a walk finds nothing new; then all are killed. Without /proc it finds none.
func endBrowserOn(dir string) {
	want := "--user-data-dir=" + dir
	tree := map[int]string{} // pid: its start time
	for grew := true; grew; {
		grew = false
		for pid, p := range processes() {
			if _, ok := tree[pid]; ok || pid == os.Getpid() || p.state == "Z" {
				continue
			}
			if _, fromTree := tree[p.ppid]; fromTree || slices.Contains(p.args(), want) {
				_ = syscall.Kill(pid, syscall.SIGSTOP)
				tree[pid], grew = p.started, true
			}
		}
	}
	for pid := range tree {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(5 * time.Second)
	for pid, started := range tree {
		for alive(pid, started) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond) // a killed process ends by itself: nothing to wait on but a look
		}
	}
}

// process is what /proc/PID/stat says of a process.
type process struct {
	pid            int
	state, started string
	ppid           int
}

// args is the process's command line; nil once it has ended (or for a zombie).
func (p process) args() []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// processes are the processes running now, by pid; none without /proc.
func processes() map[int]process {
	entries, _ := os.ReadDir("/proc")
	out := make(map[int]process, len(entries))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f, err := statFields(pid)
		if err != nil || len(f) < 20 {
			continue // ended meanwhile
		}
		ppid, _ := strconv.Atoi(f[1])
		out[pid] = process{pid: pid, state: f[0], ppid: ppid, started: f[19]}
	}
	return out
}

// alive says whether the process pid that started at started still runs (a zombie does not).
func alive(pid int, started string) bool {
	f, err := statFields(pid)
	return err == nil && len(f) >= 20 && f[19] == started && f[0] != "Z"
}
