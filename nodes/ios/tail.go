package ios

import (
	"strings"
	"sync"
)

// Bounds of what a launch command's output shows: tail keeps its last tailKeep bytes, and a
// failure quotes the last tailLines lines of them, at most tailShow bytes.
const (
	tailKeep  = 4 << 10
	tailShow  = 512
	tailLines = 5
)

// tail is an io.Writer that keeps the last tailKeep bytes written: a command's output, which
// may run on for hours (xcodebuild), held in bounded memory for when it fails.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - tailKeep; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String is the last lines written, trimmed, joined with " | ", cut to tailShow bytes (from
// the end), valid UTF-8; "" when nothing was written.
func (t *tail) String() string {
	t.mu.Lock()
	s := strings.ToValidUTF8(string(t.buf), "?")
	t.mu.Unlock()
	var lines []string
	for l := range strings.Lines(s) {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	lines = lines[max(0, len(lines)-tailLines):]
	out := strings.Join(lines, " | ")
	if len(out) > tailShow {
		out = "…" + strings.ToValidUTF8(out[len(out)-tailShow:], "")
	}
	return out
}
