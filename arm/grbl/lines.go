package grbl

import (
	"bufio"
	"io"
	"strings"
)

// maxLine bounds a line from the controller. GRBL's longest ($$, [GC:…], status reports) are
// under 120 bytes; FluidNC prints longer [MSG:…] lines. A longer line is cut, not an error.
const maxLine = 1024

// lineReader splits the controller's output into lines. CR or LF ends a line (GRBL sends CRLF,
// FluidNC LF, the welcome starts with a CRLF of its own); empty lines are skipped; a line
// longer than maxLine is cut and the rest of it, up to its end, discarded.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 4096), buf: make([]byte, 0, 128)}
}

// next returns the next non-empty line without its end, and whether it was cut. At the end
// of the stream or on a read error it returns the error; a partial last line is dropped.
func (lr *lineReader) next() (line string, cut bool, err error) {
	lr.buf = lr.buf[:0]
	for {
		c, err := lr.r.ReadByte()
		if err != nil {
			return "", false, err
		}
		if c == '\r' || c == '\n' {
			if len(lr.buf) > 0 || cut {
				return string(lr.buf), cut, nil
			}
			continue
		}
		if len(lr.buf) < maxLine {
			lr.buf = append(lr.buf, c)
		} else {
			cut = true
		}
	}
}

// isWelcome reports whether line is the greeting GRBL prints at power-up and after every
// reset: "Grbl 1.1h ['$' for help]", or FluidNC's "Grbl 3.7 [FluidNC v3.7.8 (wifi) '$' for help]".
func isWelcome(line string) bool {
	return strings.HasPrefix(line, "Grbl ") && strings.HasSuffix(line, "for help]")
}
