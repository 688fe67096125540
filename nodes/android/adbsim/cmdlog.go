package adbsim

import "sync"

// cmdLogSize is how many commands Commands keeps.
const cmdLogSize = 1024

// cmdLog is a ring of the last cmdLogSize commands.
type cmdLog struct {
	mu    sync.Mutex
	lines []string
	next  int // oldest line once the ring is full
}

func (l *cmdLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) < cmdLogSize {
		l.lines = append(l.lines, s)
		return
	}
	l.lines[l.next] = s
	l.next = (l.next + 1) % cmdLogSize
}

func (l *cmdLog) snapshot() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, 0, len(l.lines))
	out = append(out, l.lines[l.next:]...)
	return append(out, l.lines[:l.next]...)
}

// Commands returns the last 1024 shell and exec commands the device received, oldest first,
// each exactly as it arrived, without the service prefix: "input tap 540 1200",
// "dumpsys input | grep Orientation", "screencap -p".
func (d *Device) Commands() []string { return d.cmds.snapshot() }
