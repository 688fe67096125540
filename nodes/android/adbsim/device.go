package adbsim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
)

// DefaultModel is the model name a device reports unless WithModel says otherwise.
const DefaultModel = "Corral SimAndroid"

// ErrClosed is returned by Restart after Close.
var ErrClosed = errors.New("adbsim: device is closed")

// Option configures a Device.
type Option func(*Device)

// WithModel sets ro.product.model, which `adb devices -l` shows.
func WithModel(model string) Option { return func(d *Device) { d.model = model } }

// WithDensity sets the physical screen density in dpi (default 420).
func WithDensity(dpi int) Option {
	return func(d *Device) {
		if dpi > 0 {
			d.disp.density = dpi
		}
	}
}

// WithPhoneOptions passes options to the simulated phone (screen size, passcode, lock).
func WithPhoneOptions(opts ...sim.Option) Option {
	return func(d *Device) { d.phoneOpts = append(d.phoneOpts, opts...) }
}

// WithAndroid sets the Android release and SDK level the device reports (default 14, SDK 34).
// The SDK decides how `dumpsys input` prints the touch screen's rotation, as real phones do:
// "SurfaceOrientation: 1" before SDK 33, "InputDeviceOrientation: 1" on 33 and 34,
// "InputDeviceOrientation: Rotation90" from 35.
func WithAndroid(release string, sdk int) Option {
	return func(d *Device) { d.release, d.sdk = release, sdk }
}

// DefaultInputStartup is how long an `input` command takes to start unless WithInputStartup
// says otherwise: a real phone starts a Java process (app_process) first, 100 ms on a fast
// one, over a second on old ones.
const DefaultInputStartup = 150 * time.Millisecond

// WithInputStartup makes every `input` command wait dur before it acts (default
// DefaultInputStartup): commands that must land close together, like the two taps of a double
// tap, show whether they overlap those starts. WithInputStartup(0) is for tests that need
// speed.
func WithInputStartup(dur time.Duration) Option {
	return func(d *Device) { d.inputStartup = max(dur, 0) }
}

// WithTouchPanel sets the range the touchscreen's axes report, 0–maxX and 0–maxY (default
// 0–4095 both, as many panels whose units are not pixels). Touches written to it are scaled to
// the phone's pixels.
func WithTouchPanel(maxX, maxY int) Option {
	return func(d *Device) {
		if maxX > 0 && maxY > 0 && maxX <= math.MaxInt32 && maxY <= math.MaxInt32 {
			d.panelMax = [2]int32{int32(maxX), int32(maxY)}
		}
	}
}

// WithoutTouchscreen leaves the touchscreen out of the input devices getevent lists: a host
// then has nothing to write touches to, and uses `input`.
func WithoutTouchscreen() Option { return func(d *Device) { d.noTouchscreen = true } }

// WithInputDevicesDenied makes /dev/input/event* unwritable by the shell, as on builds that
// take the input group from it: getevent still lists the devices, but `test -w` fails and a
// write says "/system/bin/sh: can't create /dev/input/event2: Permission denied".
func WithInputDevicesDenied() Option { return func(d *Device) { d.inputLocked.Store(true) } }

// WithABI sets ro.product.cpu.abi (default x86_64), which decides the size of the input events
// written to the event devices: 24 bytes for a 64-bit ABI, 16 for a 32-bit one (armeabi-v7a).
func WithABI(abi string) Option { return func(d *Device) { d.abi = abi } }

// WithInputDenied makes the device refuse injected input, as a Xiaomi phone does until
// "USB debugging (Security settings)" is on: every `input` command prints a SecurityException.
func WithInputDenied() Option { return func(d *Device) { d.inputDenied = true } }

// WithoutShellV2 makes the device an old one (before Android 7): it does not advertise shell
// protocol v2, so hosts use the plain shell: service.
func WithoutShellV2() Option { return func(d *Device) { d.features = featuresV1 } }

// WithLogger logs connections and protocol errors to log (default: nowhere).
func WithLogger(log *slog.Logger) Option { return func(d *Device) { d.log = log } }

// Device is one simulated Android device listening on one TCP port. Its serial, as the adb
// server shows it after `adb connect`, is its address "127.0.0.1:PORT".
type Device struct {
	model        string
	release      string // ro.build.version.release
	sdk          int    // ro.build.version.sdk
	features     string // advertised in the connection banner
	inputStartup time.Duration
	inputDenied  bool
	phoneOpts    []sim.Option
	log          *slog.Logger
	addr         string // fixed by the first listen, kept by Restart
	phone        *sim.Phone
	builtin      []string // the phone's packages and the preinstalled helpers, sorted
	delay        atomic.Int64
	cmds         cmdLog
	files        fileStore
	life         sync.Mutex     // serialises Kill and Restart, which reuse wg
	wg           sync.WaitGroup // accept loops and connection readers
	stopCtx      func() bool    // releases the StartDevice context's hook

	// The input devices (inputdev.go, evsink.go).
	abi           string   // ro.product.cpu.abi: the size of input events
	panelMax      [2]int32 // the touchscreen's axes: 0–panelMax[0] and 0–panelMax[1]
	noTouchscreen bool
	inputLocked   atomic.Bool   // the event devices are not writable
	evdevs        []eventDevice // what getevent lists, fixed at start
	input         inputState

	mu     sync.Mutex // guards everything below
	ln     net.Listener
	conns  map[*conn]struct{}
	closed bool
	disp   display
	apps   installs
	ime    string
	clip   string
	taps   []Tap // the last maxTaps
}

// Tap is a tap the touch screen received: when the finger went down (At) and lifted (Up; the
// same for an `input tap`), and where in the phone's natural pixels. Android takes two taps
// for a double tap when the second goes down 40–300 ms after the first lifted.
type Tap struct {
	At, Up time.Time
	device.Point
}

// maxTaps bounds the taps a device remembers.
const maxTaps = 64

// Taps returns the taps the device received, oldest first (the last 64).
func (d *Device) Taps() []Tap {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.taps)
}

func (d *Device) recordTap(t Tap) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.taps) == maxTaps {
		d.taps = slices.Delete(d.taps, 0, 1)
	}
	d.taps = append(d.taps, t)
}

// StartDevice starts a device listening on addr ("127.0.0.1:0" picks a free port). It runs
// until Close or until ctx ends.
func StartDevice(ctx context.Context, addr string, opts ...Option) (*Device, error) {
	d := &Device{
		model:    DefaultModel,
		release:  "14",
		sdk:      34,
		features: features,
		log:      slog.New(slog.DiscardHandler),
		conns:    map[*conn]struct{}{},
		disp:     display{density: defaultDensity},
		ime:      imeLatin,
		files:    fileStore{limit: storageLimit},
		abi:      "x86_64",
		panelMax: [2]int32{4095, 4095},
		input:    inputState{devs: map[string]*evdevState{}, writers: map[*stream]struct{}{}},

		inputStartup: DefaultInputStartup,
	}
	for _, o := range opts {
		o(d)
	}
	d.evdevs = d.eventDevices()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("adbsim: listen on %s: %w (is the port taken? use port 0 for a free one)", addr, err)
	}
	d.addr = serialOf(ln.Addr())
	d.phone = sim.New(d.addr, d.phoneOpts...)
	if err := d.initPhone(); err != nil {
		_ = ln.Close()
		return nil, err
	}
	d.ln = ln
	d.serve(ln)
	d.stopCtx = context.AfterFunc(ctx, func() { _ = d.Close() })
	return d, nil
}

// initPhone reads what never changes on the phone: its screen size and packages.
func (d *Device) initPhone() error {
	ctx := context.Background()
	size, err := d.phone.ScreenSize(ctx)
	if err != nil {
		return err
	}
	pkgs, err := d.phone.ListPackages(ctx)
	if err != nil {
		return err
	}
	d.disp.physW, d.disp.physH = size.Width, size.Height
	d.builtin = sortedUnion(pkgs, helperPackages)
	return nil
}

// serialOf is the serial adb shows for a device at a: "127.0.0.1:PORT" for a wildcard listener.
func serialOf(a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return a.String()
	}
	ip := ta.IP
	if ip == nil || ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
	}
	return net.JoinHostPort(ip.String(), fmt.Sprint(ta.Port))
}

// Serial is the device's serial as the adb server shows it: "127.0.0.1:PORT".
func (d *Device) Serial() string { return d.addr }

// Addr is the address to give `adb connect`; it equals Serial.
func (d *Device) Addr() string { return d.addr }

// Model is the device's ro.product.model.
func (d *Device) Model() string { return d.model }

// Phone is the simulated phone behind the device: its screens, InputLog and faults.
func (d *Device) Phone() *sim.Phone { return d.phone }

// SetDelay makes every later shell and exec command take at least dur before it runs; a
// command waiting out the delay stops when its stream or connection closes.
func (d *Device) SetDelay(dur time.Duration) { d.delay.Store(int64(max(dur, 0))) }

// serve accepts connections on ln, the device's listener, until it is closed.
func (d *Device) serve(ln net.Listener) {
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			c := newConn(d, nc)
			d.mu.Lock()
			if d.ln != ln { // killed between Accept and here
				d.mu.Unlock()
				_ = nc.Close()
				continue
			}
			d.conns[c] = struct{}{}
			d.mu.Unlock()
			d.wg.Add(1)
			go func() {
				defer d.wg.Done()
				c.run()
				d.mu.Lock()
				delete(d.conns, c)
				d.mu.Unlock()
			}()
		}
	}()
}

// Kill drops every connection and stops listening, as if the device were unplugged. Commands
// in flight see their context cancelled. Restart brings the device back on the same port.
func (d *Device) Kill() {
	d.life.Lock()
	defer d.life.Unlock()
	d.mu.Lock()
	ln := d.ln
	d.ln = nil
	conns := make([]*conn, 0, len(d.conns))
	for c := range d.conns {
		conns = append(conns, c)
	}
	d.mu.Unlock()
	if ln != nil {
		_ = ln.Close()
	}
	for _, c := range conns {
		c.close()
	}
	d.wg.Wait()
}

// Restart listens again on the device's port after Kill, keeping its serial and its phone's
// state. The adb server, which shows the device offline since Kill, reconnects on its own
// within about 10 s; `adb disconnect SERIAL` then `adb connect SERIAL` does it at once (a bare
// `adb connect` answers "already connected" and waits too).
func (d *Device) Restart() error {
	d.life.Lock()
	defer d.life.Unlock()
	d.mu.Lock()
	closed, running := d.closed, d.ln != nil
	d.mu.Unlock()
	switch {
	case closed:
		return ErrClosed
	case running:
		return nil
	}
	ln, err := net.Listen("tcp", d.addr)
	if err != nil {
		return fmt.Errorf("adbsim: restart %s: %w", d.addr, err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || d.ln != nil { // closed, or restarted by another call, meanwhile
		_ = ln.Close()
		if d.closed {
			return ErrClosed
		}
		return nil
	}
	d.ln = ln
	d.serve(ln)
	return nil
}

// Close kills the device for good and closes its phone, which also frees any phone operation
// hung by the phone's HangNext. It is idempotent.
func (d *Device) Close() error {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.stopCtx()
	d.Kill()
	return d.phone.Close()
}
