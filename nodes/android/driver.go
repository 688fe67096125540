package android

import (
	"cmp"
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

var (
	_ device.Driver             = (*Driver)(nil)
	_ device.DoubleTapper       = (*Driver)(nil)
	_ device.Swiper             = (*Driver)(nil)
	_ device.TextInputter       = (*Driver)(nil)
	_ device.KeyPresser         = (*Driver)(nil)
	_ device.AppManager         = (*Driver)(nil)
	_ device.SourceDumper       = (*Driver)(nil)
	_ device.HealthChecker      = (*Driver)(nil)
	_ device.Closer             = (*Driver)(nil)
	_ device.AppInstaller       = (*Driver)(nil)
	_ device.AppClearer         = (*Driver)(nil)
	_ device.ForegroundReporter = (*Driver)(nil)
	_ device.IMESetter          = (*Driver)(nil)
	_ device.ClipboardSetter    = (*Driver)(nil)
	_ device.DensityReporter    = (*Driver)(nil)
	_ device.StatusReporter     = (*Driver)(nil)
)

// Driver drives one device of an adb server. It is safe for concurrent use: every call opens
// its own connection to the adb server.
type Driver struct {
	addr   string
	serial string // the adb server's
	name   string // the serial Info shows instead, if any (WithSerialNames)
	info   device.Info

	mu     sync.Mutex // guards conns and closed
	conns  map[closer]struct{}
	closed bool

	size screenCache
	geom geometryCache
	log  *slog.Logger
	tags []string // Info's: "sim" for a simulated device (WithTags)
	// passcode unlocks a simulated device the node started (WithPasscodes); "" for a real one.
	passcode string

	// How touches and keys are sent, learnt at creation (setupInput): touch is nil, and a key
	// missing from keys, when they are `input` commands. touchInfo and keysInfo say which.
	touch               *touchscreen
	keys                map[string]keyTarget
	touchInfo, keysInfo string

	// shellV2 is true when the device speaks shell protocol v2 (Android 7 and later): its
	// commands then end with an exit status, and a stream that ends without one means the
	// device left, with no need to ask the adb server.
	shellV2 bool
}

// closer is what the driver closes when it is closed: its calls' connections.
type closer interface{ Close() error }

// Properties the driver reads once, at creation: for Info, and the ABI (ro.product.cpu.abi),
// which sizes the input events it writes.
var infoProps = [...]string{"ro.product.model", "ro.product.brand", "ro.build.version.release", "ro.build.version.sdk", "ro.product.cpu.abi"}

// Option configures a Driver.
type Option func(*Driver)

// WithLogger logs what the driver does on its own: an event stream it opens again, a call it
// makes with `input` after its events failed (default: nowhere).
func WithLogger(log *slog.Logger) Option {
	return func(d *Driver) {
		if log != nil {
			d.log = log
		}
	}
}

// WithTags gives the device's Info these tags, which the registry shows and callers filter
// on: "sim" for a simulated device, as the --sim phones and --sim-ios iPhones have.
func WithTags(tags ...string) Option {
	tags = slices.Clone(tags)
	return func(d *Driver) { d.tags = tags }
}

// New returns a driver for the device serial of the adb server at addr (ServerAddr() when
// empty). It reads the device's model, brand, release and SDK level once, for Info, and its
// input devices (`getevent -lp`), to write touches and keys as input events where it may
// (setupInput); it fails if the device does not answer.
func New(ctx context.Context, addr, serial string, opts ...Option) (*Driver, error) {
	if addr == "" {
		addr = ServerAddr()
	}
	d := &Driver{addr: addr, serial: serial, conns: map[closer]struct{}{}, log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(d)
	}
	if serial == "" || strings.ContainsAny(serial, "\x00\n") {
		return nil, d.fail(ctx, "connect", ErrBadArgument, "a serial is what `adb devices` lists")
	}
	features, err := hostQuery(ctx, addr, "host-serial:"+serial+":features")
	if err != nil {
		return nil, d.fail(ctx, "connect", err, "")
	}
	d.shellV2 = slices.Contains(strings.Split(strings.TrimSpace(features), ","), "shell_v2")
	var (
		wg       sync.WaitGroup
		values   [len(infoProps)]string
		errs     [len(infoProps) + 1]error
		getevent string
	)
	for i, prop := range infoProps {
		wg.Go(func() { values[i], errs[i] = d.getprop(ctx, prop) })
	}
	wg.Go(func() { getevent, errs[len(infoProps)] = d.shell(ctx, "input devices", "getevent -lp") })
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	d.info = device.Info{Serial: cmp.Or(d.name, serial), Platform: device.PlatformAndroid,
		Model: values[0], Brand: values[1], Release: values[2], SDK: values[3], Tags: d.tags}
	if err := d.setupInput(ctx, values[4], getevent); err != nil {
		return nil, err
	}
	return d, nil
}

// Info describes the device as it was when the driver was made. It never blocks. Extra holds
// the adb server, and how touches ("touch": the touchscreen's event device, or "input command"
// and why) and keys ("keys") are sent.
func (d *Driver) Info() device.Info {
	info := d.info
	info.Extra = map[string]string{"adb_server": d.addr}
	if d.name != "" {
		info.Extra["adb_serial"] = d.serial
	}
	if d.touchInfo != "" {
		info.Extra["touch"] = d.touchInfo
	}
	if d.keysInfo != "" {
		info.Extra["keys"] = d.keysInfo
	}
	return info
}

// Serial returns the device's adb serial.
func (d *Driver) Serial() string { return d.serial }

// shownSerial is the serial the caller knows the device by (its name, WithSerialNames, else
// its adb serial): errors and logs name it, so that they match what the caller passed.
func (d *Driver) shownSerial() string { return cmp.Or(d.name, d.serial) }

// logSerial is the serial attributes of a log line: the shown serial, and the adb serial (for
// adb -s) when the device shows another.
func (d *Driver) logSerial() []any {
	if d.name == "" {
		return []any{"serial", d.serial}
	}
	return []any{"serial", d.name, "adb_serial", d.serial}
}

// Close fails the calls in flight and every later call with ErrDisconnected. The node calls
// it when the device leaves. It is idempotent.
func (d *Driver) Close() error {
	d.mu.Lock()
	d.closed = true
	conns := d.conns
	d.conns = map[closer]struct{}{}
	d.mu.Unlock()
	for c := range conns {
		_ = c.Close()
	}
	return nil
}

// Health checks that the device runs shell commands: `echo ok` answers ok.
func (d *Driver) Health(ctx context.Context) error {
	const op = "health"
	out, err := d.shell(ctx, op, "echo ok")
	if err != nil {
		return err
	}
	if strings.TrimSpace(out) != "ok" {
		return d.fail(ctx, op, ErrCommandFailed, "`echo ok` answered "+quoteOutput(out))
	}
	return nil
}

func (d *Driver) getprop(ctx context.Context, prop string) (string, error) {
	out, err := d.shell(ctx, "getprop "+prop, "getprop "+prop)
	return strings.TrimSpace(out), err
}

func (d *Driver) isClosed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.closed
}

// track remembers c so that Close can close it; it is false once the driver is closed.
func (d *Driver) track(c closer) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return false
	}
	d.conns[c] = struct{}{}
	return true
}

func (d *Driver) untrack(c closer) {
	d.mu.Lock()
	delete(d.conns, c)
	d.mu.Unlock()
}

// sleep waits t or until ctx is done.
func sleep(ctx context.Context, t time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err // ended already: not a coin toss with a timer that is due
	}
	timer := time.NewTimer(t)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
