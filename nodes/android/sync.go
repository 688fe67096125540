package android

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"time"
)

// The sync: service, the part of it push needs: "SEND" with "PATH,MODE", the file as "DATA"
// chunks of at most 64 KiB, "DONE" with the modification time, then the device answers "OKAY"
// or "FAIL" with a message. Every id is followed by a little-endian uint32.

// syncMaxData is the largest DATA chunk adbd takes.
const syncMaxData = 64 << 10

// pushMode is the mode pushed files get, written as the contract spells it (adbd reads it
// with strtoul base 0, so 0644 is octal).
const pushMode = "0644"

// push copies r to path on the device over the sync: service.
func (d *Driver) push(ctx context.Context, r io.Reader, path string, mtime time.Time) error {
	c, release, err := d.open(ctx, "sync:")
	if err != nil {
		return err
	}
	defer release()
	w := bufio.NewWriterSize(c, syncMaxData+8)
	if err := syncWrite(w, "SEND", []byte(path+","+pushMode)); err != nil {
		return err
	}
	buf := make([]byte, syncMaxData)
	for {
		n, rerr := io.ReadFull(r, buf)
		if n > 0 {
			if err := syncWrite(w, "DATA", buf[:n]); err != nil {
				return err
			}
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return fmt.Errorf("%w: reading the file to push: %w", ErrBadArgument, rerr)
		}
	}
	if err := syncHeader(w, "DONE", uint32(max(mtime.Unix(), 0))); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	var head [8]byte
	if _, err := io.ReadFull(c, head[:]); err != nil {
		return err
	}
	switch id, n := string(head[:4]), binary.LittleEndian.Uint32(head[4:]); id {
	case "OKAY":
		return nil
	case "FAIL":
		msg := make([]byte, min(n, 4096))
		if _, err := io.ReadFull(c, msg); err != nil {
			return err
		}
		return fmt.Errorf("%w: push to %s: %s", ErrCommandFailed, path, msg)
	default:
		return fmt.Errorf("%w: push to %s: the device answered %q", ErrServer, path, id)
	}
}

// syncHeader writes an id and its uint32.
func syncHeader(w io.Writer, id string, n uint32) error {
	var h [8]byte
	copy(h[:4], id)
	binary.LittleEndian.PutUint32(h[4:], n)
	_, err := w.Write(h[:])
	return err
}

// syncWrite writes an id, the length of data, and data.
func syncWrite(w io.Writer, id string, data []byte) error {
	if err := syncHeader(w, id, uint32(len(data))); err != nil {
		return err
	}
	_, err := w.Write(data)
	return err
}
