package mcp

import (
	"bufio"
	"io"
)

// stdinLine is one line read from the bridge's stdin, as readLine gives it.
type stdinLine struct {
	line []byte
	over *oversized
	err  error
}

// readLines reads in a line at a time in a goroutine of its own, so that Run can stop on a
// signal while a client keeps its stdin open: a read blocks until the client writes. The
// last line sent carries in's error (io.EOF at its end). stop ends the sending; a read under
// way ends with in (the process's stdin: with the process).
func readLines(in io.Reader) (lines <-chan stdinLine, stop func()) {
	ch := make(chan stdinLine)
	done := make(chan struct{})
	go func() {
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, over, err := readLine(r, maxLine)
			select {
			case ch <- stdinLine{line, over, err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return ch, func() { close(done) }
}
