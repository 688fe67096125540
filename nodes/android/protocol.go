package android

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
)

// The adb host protocol, the part this package needs: a client sends a request as four hex
// digits of length and the request; the server answers OKAY, or FAIL with a length-prefixed
// message. After "host:transport:SERIAL" and a device service ("shell:…", "exec:…", "sync:")
// the connection carries that service's stream until either side closes it.

// maxRequest is the longest request the four hex digits can announce.
const maxRequest = 0xffff

// dial connects to the adb server at addr; ctx bounds the dial only.
func dial(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%w at %s unreachable: %w", ErrServer, addr, err)
	}
	return c, nil
}

// sendRequest writes one length-prefixed request.
func sendRequest(w io.Writer, req string) error {
	if len(req) > maxRequest {
		return fmt.Errorf("%w: request of %d bytes is longer than adb allows (%d)", ErrBadArgument, len(req), maxRequest)
	}
	_, err := io.WriteString(w, fmt.Sprintf("%04x", len(req))+req)
	return err
}

// failError is a FAIL answer of the adb server.
type failError struct{ msg string }

func (e *failError) Error() string { return "adb server refused: " + e.msg }

// readStatus reads OKAY (nil) or FAIL and its message (*failError).
func readStatus(r io.Reader) error {
	var status [4]byte
	if _, err := io.ReadFull(r, status[:]); err != nil {
		return err
	}
	switch string(status[:]) {
	case "OKAY":
		return nil
	case "FAIL":
		msg, err := readMessage(r)
		if err != nil {
			return err
		}
		return &failError{msg: string(msg)}
	}
	return fmt.Errorf("%w answered %q where OKAY or FAIL belongs", ErrServer, status[:])
}

// readMessage reads one length-prefixed message.
func readMessage(r io.Reader) ([]byte, error) {
	var hex [4]byte
	if _, err := io.ReadFull(r, hex[:]); err != nil {
		return nil, err
	}
	n, err := strconv.ParseUint(string(hex[:]), 16, 16)
	if err != nil {
		return nil, fmt.Errorf("%w sent a bad length %q", ErrServer, hex[:])
	}
	msg := make([]byte, n)
	if _, err := io.ReadFull(r, msg); err != nil {
		return nil, err
	}
	return msg, nil
}

// request sends req and reads the answer's status.
func request(rw io.ReadWriter, req string) error {
	if err := sendRequest(rw, req); err != nil {
		return err
	}
	return readStatus(rw)
}

// hostQuery runs one host request that answers with a length-prefixed message
// (e.g. "host-serial:SERIAL:get-state"). Cancelling ctx closes the connection.
func hostQuery(ctx context.Context, addr, req string) (string, error) {
	c, err := dial(ctx, addr)
	if err != nil {
		return "", err
	}
	return queryOn(ctx, c, req)
}

// queryOn runs one host request on c, which it closes. Cancelling ctx closes c.
func queryOn(ctx context.Context, c net.Conn, req string) (string, error) {
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { _ = c.Close() })
	defer stop()
	if err := request(c, req); err != nil {
		return "", err
	}
	msg, err := readMessage(c)
	if err != nil {
		return "", err
	}
	return string(msg), nil
}

// isGone says whether a FAIL from the adb server means the device is not (or no longer) there.
func isGone(err error) bool {
	var f *failError
	if !errors.As(err, &f) {
		return false
	}
	return containsAny(f.msg, "not found", "offline", "no devices", "no emulators")
}
