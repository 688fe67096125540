package android

import (
	"context"
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
	serial string
	info   device.Info

	mu     sync.Mutex // guards conns and closed
	conns  map[closer]struct{}
	closed bool

	size screenCache

	// shellV2 is true when the device speaks shell protocol v2 (Android 7 and later): its
	// commands then end with an exit status, and a stream that ends without one means the
	// device left, with no need to ask the adb server.
	shellV2 bool
}

// closer is what the driver closes when it is closed: its calls' connections.
type closer interface{ Close() error }

// Properties the driver reads once, at creation, for Info.
var infoProps = [...]string{"ro.product.model", "ro.product.brand", "ro.build.version.release", "ro.build.version.sdk"}

// New returns a driver for the device serial of the adb server at addr (ServerAddr() when
// empty). It reads the device's model, brand, release and SDK level once, for Info, and fails
// if the device does not answer.
func New(ctx context.Context, addr, serial string) (*Driver, error) {
	if addr == "" {
		addr = ServerAddr()
	}
	d := &Driver{addr: addr, serial: serial, conns: map[closer]struct{}{}}
	if serial == "" || strings.ContainsAny(serial, "\x00\n") {
		return nil, d.fail(ctx, "connect", ErrBadArgument, "a serial is what `adb devices` lists")
	}
	features, err := hostQuery(ctx, addr, "host-serial:"+serial+":features")
	if err != nil {
		return nil, d.fail(ctx, "connect", err, "")
	}
	d.shellV2 = slices.Contains(strings.Split(strings.TrimSpace(features), ","), "shell_v2")
	var (
		wg     sync.WaitGroup
		values [len(infoProps)]string
		errs   [len(infoProps)]error
	)
	for i, prop := range infoProps {
		wg.Go(func() { values[i], errs[i] = d.getprop(ctx, prop) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	d.info = device.Info{Serial: serial, Platform: device.PlatformAndroid,
		Model: values[0], Brand: values[1], Release: values[2], SDK: values[3]}
	return d, nil
}

// Info describes the device as it was when the driver was made. It never blocks.
func (d *Driver) Info() device.Info {
	info := d.info
	info.Extra = map[string]string{"adb_server": d.addr}
	return info
}

// Serial returns the device's adb serial.
func (d *Driver) Serial() string { return d.serial }

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
	timer := time.NewTimer(t)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
