package firefox

import (
	"bytes"
	"regexp"
	"sync"
)

// listening is the line Firefox prints on stderr once its WebDriver BiDi server is up.
var listening = regexp.MustCompile(`WebDriver BiDi listening on (ws://\S+)`)

// stderrWatch is Firefox's stderr: it sends the BiDi address on found once Firefox prints it,
// and keeps the lines before it for the error when it never comes. What follows is discarded.
type stderrWatch struct {
	found chan string // buffered: one address

	mu      sync.Mutex
	partial []byte       // a line not ended yet
	before  bytes.Buffer // the lines before the address, their first 4 KiB
	done    bool         // the address was found
}

func newStderrWatch() *stderrWatch { return &stderrWatch{found: make(chan string, 1)} }

func (w *stderrWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return len(p), nil
	}
	w.partial = append(w.partial, p...)
	for {
		line, rest, ok := bytes.Cut(w.partial, []byte("\n"))
		if !ok {
			return len(p), nil
		}
		w.partial = rest
		if m := listening.FindSubmatch(line); m != nil {
			w.found <- string(m[1])
			w.done, w.partial = true, nil
			return len(p), nil
		}
		if w.before.Len() < 4<<10 {
			w.before.Write(line)
			w.before.WriteByte('\n')
		}
	}
}

// said is what Firefox printed before its address (all it printed, when none came).
func (w *stderrWatch) said() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.before.String() + string(w.partial)
}
