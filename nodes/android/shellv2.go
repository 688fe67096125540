package android

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Shell protocol v2 packet ids (adb's shell_protocol.h). A packet is the id, a little-endian
// 32-bit length and that many bytes.
const (
	shellStdout = 1
	shellStderr = 2
	shellExit   = 3
)

// serviceV2 runs a shell,v2 service and returns what it writes to stdout and stderr, in the
// order it arrives, up to limit bytes. The exit status tells that the command finished; a
// stream that ends without one was cut (the device left, or the adb server dropped it), and
// only then is the adb server asked which. The status itself is not an error: the callers
// read the output, as with the plain shell: service.
func (d *Driver) serviceV2(ctx context.Context, svc string, limit int64) ([]byte, error) {
	c, release, err := d.open(ctx, svc)
	if err != nil {
		return nil, err
	}
	defer release()
	out, done, err := readShellV2(c, limit)
	if err != nil {
		return nil, err
	}
	if !done {
		if err := d.present(ctx, nil); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: the command's stream ended without an exit status", ErrCommandFailed)
	}
	return out, nil
}

// readShellV2 reads shell protocol v2 packets up to the exit status. done is false if the
// stream ended before it.
func readShellV2(r io.Reader, limit int64) (out []byte, done bool, err error) {
	var hdr [5]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return out, false, nil
			}
			return nil, false, err
		}
		n := int64(binary.LittleEndian.Uint32(hdr[1:]))
		switch id := hdr[0]; {
		case id == shellExit:
			if n < 1 {
				return nil, false, fmt.Errorf("%w: an exit packet without a status", ErrCommandFailed)
			}
			_, err := io.CopyN(io.Discard, r, n)
			return out, err == nil, nil
		case id == shellStdout || id == shellStderr:
			if int64(len(out))+n > limit {
				return nil, false, fmt.Errorf("%w: the answer is longer than %d bytes", ErrCommandFailed, limit)
			}
			start := len(out)
			out = append(out, make([]byte, n)...)
			if _, err := io.ReadFull(r, out[start:]); err != nil {
				if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
					return out[:start], false, nil
				}
				return nil, false, err
			}
		default: // window size, close-stdin: nothing for a command without a terminal
			if n > 1<<16 {
				return nil, false, fmt.Errorf("%w: a shell packet of kind %d and %d bytes", ErrCommandFailed, id, n)
			}
			if _, err := io.CopyN(io.Discard, r, n); err != nil {
				return out, false, nil
			}
		}
	}
}
