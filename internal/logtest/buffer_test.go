package logtest

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Writers on many goroutines, and a reader among them, lose no line (run under -race).
func TestBufferTakesConcurrentWrites(t *testing.T) {
	var b Buffer
	const writers, lines = 8, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				fmt.Fprintf(&b, "writer=%d line=%d\n", w, i)
				_ = b.Line("writer=0 ")
			}
		}()
	}
	wg.Wait()
	if n := strings.Count(b.String(), "\n"); n != writers*lines {
		t.Fatalf("the buffer holds %d lines, want %d", n, writers*lines)
	}
}

// Line is the first line holding s, whole with its newline, and "" while none does.
func TestBufferLine(t *testing.T) {
	var b Buffer
	if got := b.Line("ready"); got != "" {
		t.Fatalf("an empty buffer's line is %q, want none", got)
	}
	_, _ = b.Write([]byte("msg=starting\nmsg=ready node=n1\nmsg=ready node=n2\n"))
	if got := b.Line("ready"); got != "msg=ready node=n1\n" {
		t.Fatalf("the line holding ready is %q, want the first one", got)
	}
	if got := b.Line("stopped"); got != "" {
		t.Fatalf("the line holding stopped is %q, want none", got)
	}
}
