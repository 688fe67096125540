package android

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// Output limits: what one command may answer before the driver gives up on it.
const (
	maxTextOutput  = 16 << 20 // shell commands: UI dumps, package lists, dumpsys
	maxImageOutput = 64 << 20 // screencap -p of the largest screens
)

// presenceTimeout bounds the question "is the device still there?" asked after a stream ends.
const presenceTimeout = 2 * time.Second

// shell runs cmd with the shell: service (shell protocol v2 where the device speaks it) and
// returns its output, stderr included.
func (d *Driver) shell(ctx context.Context, op, cmd string) (string, error) {
	var (
		out []byte
		err error
	)
	if d.shellV2 {
		out, err = d.serviceV2(ctx, "shell,v2,raw:"+cmd, maxTextOutput)
	} else {
		out, err = d.service(ctx, "shell:"+cmd, maxTextOutput, nil)
	}
	if err != nil {
		return "", d.fail(ctx, op, err, "")
	}
	return string(out), nil
}

// input runs an `input` command. It prints nothing when it worked, so anything it prints is
// its failure: an unknown command on an older Android, bad arguments, or the
// SecurityException of a phone that does not let adb inject input.
func (d *Driver) input(ctx context.Context, op, cmd string) error {
	out, err := d.shell(ctx, op, cmd)
	if err != nil {
		return err
	}
	if out = strings.TrimSpace(out); out != "" {
		hint := ""
		if strings.Contains(out, "INJECT_EVENTS") || strings.Contains(out, "SecurityException") {
			hint = `the phone refuses input from adb: on Xiaomi (MIUI, HyperOS) turn on "USB debugging (Security settings)" in the developer options`
		}
		return d.fail(ctx, op, fmt.Errorf("%w: input answered %s", ErrCommandFailed, quoteOutput(out)), hint)
	}
	return nil
}

// exec runs cmd with the exec: service, which carries bytes unchanged (no pty, no CR/LF
// translation on old devices), and returns its output.
// size, when given, tells the answer's length from its first bytes (see readAnswer).
func (d *Driver) exec(ctx context.Context, op, cmd string, limit int64, size func(head []byte) int) ([]byte, error) {
	out, err := d.service(ctx, "exec:"+cmd, limit, size)
	if err != nil {
		return nil, d.fail(ctx, op, err, "")
	}
	return out, nil
}

// service runs one device service and returns everything it writes, up to limit bytes.
func (d *Driver) service(ctx context.Context, svc string, limit int64, size func(head []byte) int) ([]byte, error) {
	// The question asked once the stream ends gets its connection now, while the command runs.
	spare := dialAhead(ctx, d.addr)
	defer spare.discard()
	c, release, err := d.open(ctx, svc)
	if err != nil {
		return nil, err
	}
	defer release()
	out, err := readAnswer(c, limit, size)
	if err != nil {
		return nil, err
	}
	if int64(len(out)) > limit {
		return nil, fmt.Errorf("%w: the answer is longer than %d bytes", ErrCommandFailed, limit)
	}
	// A stream ends the same way whether the command finished or the device left; only the
	// adb server can tell which.
	if err := d.present(ctx, spare); err != nil {
		return nil, err
	}
	return out, nil
}

// sizeProbe is how many of an answer's first bytes readAnswer shows its size function.
const sizeProbe = 12

// readAnswer reads all r has, up to limit bytes and one more (which the caller refuses). With
// size, it reads the first sizeProbe bytes, asks size how long the whole answer is, and reads
// it into one buffer of that length: io.ReadAll would copy a 10 MB framebuffer through a dozen
// ever larger buffers. An answer longer than announced is still read whole.
func readAnswer(r io.Reader, limit int64, size func(head []byte) int) ([]byte, error) {
	r = io.LimitReader(r, limit+1)
	if size == nil {
		return io.ReadAll(r)
	}
	head := make([]byte, sizeProbe)
	n, err := io.ReadFull(r, head)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return head[:n], nil
		}
		return nil, err
	}
	want := min(int64(size(head)), limit) + 1 // +1: room to see the end without growing
	if want <= sizeProbe {
		rest, err := io.ReadAll(r)
		return append(head, rest...), err
	}
	buf := append(make([]byte, 0, want), head...)
	for len(buf) < cap(buf) {
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
	rest, err := io.ReadAll(r)
	return append(buf, rest...), err
}

// open connects to the adb server, switches to the device and starts svc. Until release is
// called, cancelling ctx or closing the driver closes the connection, which ends any read or
// write on it at once.
func (d *Driver) open(ctx context.Context, svc string) (c net.Conn, release func(), err error) {
	c, stop, err := d.start(ctx, svc)
	if err != nil {
		return nil, nil, err
	}
	release = func() {
		stop()
		d.untrack(c)
		_ = c.Close()
	}
	return c, release, nil
}

// start connects to the adb server, switches to the device and starts svc. The connection is
// tracked (closing the driver closes it) until untracked, and cancelling ctx closes it until
// stop is called.
func (d *Driver) start(ctx context.Context, svc string) (net.Conn, func() bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if d.isClosed() {
		return nil, nil, ErrDisconnected
	}
	conn, err := dial(ctx, d.addr)
	if err != nil {
		return nil, nil, err
	}
	if !d.track(conn) {
		_ = conn.Close()
		return nil, nil, ErrDisconnected
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	abandon := func() {
		stop()
		d.untrack(conn)
		_ = conn.Close()
	}
	if err := request(conn, "host:transport:"+d.serial); err != nil {
		abandon()
		if isGone(err) {
			return nil, nil, fmt.Errorf("%w: %w", ErrDisconnected, err)
		}
		return nil, nil, err
	}
	if err := request(conn, svc); err != nil {
		abandon()
		return nil, nil, err
	}
	return conn, stop, nil
}

// present returns nil if the adb server still has the device in state "device", and an error
// wrapping ErrDisconnected if it does not. It asks over spare's connection, or a new one if
// spare is nil.
func (d *Driver) present(ctx context.Context, spare *spareConn) error {
	ctx, cancel := context.WithTimeout(ctx, presenceTimeout)
	defer cancel()
	req := "host-serial:" + d.serial + ":get-state"
	var (
		state string
		err   error
	)
	if spare != nil {
		state, err = spare.query(ctx, req)
	} else {
		state, err = hostQuery(ctx, d.addr, req)
	}
	var f *failError
	switch {
	case err == nil && state == "device":
		return nil
	case err == nil:
		return fmt.Errorf("%w: the adb server now lists it as %q", ErrDisconnected, state)
	case errors.As(err, &f):
		return fmt.Errorf("%w: %w", ErrDisconnected, err)
	case errors.Is(err, ErrServer):
		return fmt.Errorf("%w: %w", ErrDisconnected, err)
	}
	return err
}

// fail turns what went wrong in op into an *Error: the caller's ctx error if ctx is done or
// its deadline passed, ErrDisconnected if the driver was closed or the device has left, else
// err itself.
func (d *Driver) fail(ctx context.Context, op string, err error, hint string) error {
	var already *Error
	switch {
	case errors.As(err, &already):
		return err
	case ctx.Err() != nil:
		err, hint = ctx.Err(), ""
	case deadlinePassed(ctx):
		// A dial's own timer, set from ctx's deadline, may fire before ctx's: its "i/o
		// timeout" is the caller's deadline, and asking the adb server whether the device is
		// there, past that deadline, fails too and read as a disconnect.
		err, hint = context.DeadlineExceeded, ""
	case d.isClosed():
		err = ErrDisconnected
	case errors.Is(err, ErrDisconnected) || errors.Is(err, ErrBadArgument) || errors.Is(err, ErrCommandFailed):
	default:
		// A broken stream or an odd answer: if the device has left, that is the reason.
		if perr := d.present(ctx, nil); perr != nil && errors.Is(perr, ErrDisconnected) {
			err = perr
		}
	}
	if hint == "" {
		hint = hintFor(err, d.addr)
	}
	return &Error{Kind: "android", Serial: d.shownSerial(), Op: op, Err: err, Hint: hint}
}

// deadlinePassed says whether ctx's deadline has passed, though its timer may not have ended
// ctx yet.
func deadlinePassed(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}

// hintFor says what to do about err, if there is something to say.
func hintFor(err error, addr string) string {
	switch {
	case errors.Is(err, ErrServer): // the device may be there still: the node lost its adb server
		return "is the adb server at " + addr + " running? start it with `adb start-server`, or set ANDROID_ADB_SERVER_PORT"
	case errors.Is(err, ErrDisconnected):
		return "it left the adb server at " + addr + "; check the cable or `adb devices`, and retry once it is back"
	}
	return ""
}
