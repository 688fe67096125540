package logtest

import (
	"bytes"
	"strings"
	"sync"
)

// Buffer is an io.Writer safe for concurrent writers, for a log that a test reads while the code
// under test still writes to it. Pass it to slog.NewTextHandler (or any writer-taking logger); the
// zero value is ready to use.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Line returns the first line written so far that holds s, "" when none does yet.
func (b *Buffer) Line(s string) string {
	for l := range strings.Lines(b.String()) {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
