package iossim

import (
	"bytes"
	"io"
)

// readN reads exactly n bytes. Its buffer grows as bytes arrive, so a peer that announces a
// large message and sends nothing costs no memory.
func readN(r io.Reader, n uint64) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(int(min(n, 64<<10)))
	got, err := io.CopyN(&buf, r, int64(n))
	if err == io.EOF && got < int64(n) {
		err = io.ErrUnexpectedEOF
	}
	return buf.Bytes(), err
}
