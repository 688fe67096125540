package sim

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

var (
	_ device.Driver        = (*Phone)(nil)
	_ device.DoubleTapper  = (*Phone)(nil)
	_ device.Swiper        = (*Phone)(nil)
	_ device.TextInputter  = (*Phone)(nil)
	_ device.KeyPresser    = (*Phone)(nil)
	_ device.AppManager    = (*Phone)(nil)
	_ device.SourceDumper  = (*Phone)(nil)
	_ device.HealthChecker = (*Phone)(nil)
	_ device.Closer        = (*Phone)(nil)

	_ device.AppInstaller       = (*Phone)(nil)
	_ device.AppClearer         = (*Phone)(nil)
	_ device.ForegroundReporter = (*Phone)(nil)
	_ device.IMESetter          = (*Phone)(nil)
	_ device.ClipboardSetter    = (*Phone)(nil)
	_ device.DensityReporter    = (*Phone)(nil)
	_ device.StatusReporter     = (*Phone)(nil)
)

// DefaultPasscode unlocks a phone made without WithPasscode.
const DefaultPasscode = "1234"

// Screen size limits; WithSize clamps to them so layouts stay sane.
const (
	minWidth, maxWidth   = 320, 4096
	minHeight, maxHeight = 480, 8192
)

// Phone is one simulated Android phone. It is safe for concurrent use; see Overlaps for how it
// reports that concurrency.
type Phone struct {
	serial   string
	size     device.Size
	passcode string
	density  int

	// Test behaviours, read before any lock is taken (behaviour.go).
	delay     atomic.Int64 // time.Duration every operation takes at least
	inflight  atomic.Int64
	ops       atomic.Int64
	overlaps  atomic.Int64
	closed    chan struct{}
	closeOnce sync.Once
	noTree    atomic.Bool // Source shows a bare canvas (WithoutTree, HideTree)
	drawn     drawnScreen // the last screen drawn (drawn.go)

	mu        sync.Mutex // guards everything below; never held while blocking
	st        state
	faults    []fault
	log       inputLog
	extra     []string // packages installed by InstallApp, sorted
	ime       string
	clipboard string
}

// Option configures a Phone.
type Option func(*Phone)

// WithSize sets the screen size in pixels (default 1080x2400); landscape sizes work too. Pages
// scale to fit; sizes are clamped to 320x480 .. 4096x8192.
func WithSize(width, height int) Option {
	return func(p *Phone) {
		p.size = device.Size{Width: clamp(width, minWidth, maxWidth), Height: clamp(height, minHeight, maxHeight)}
	}
}

// WithPasscode sets the lock screen passcode: 1 to 16 digits. It panics otherwise, as a wrong
// passcode is a mistake in the test that sets it.
func WithPasscode(code string) Option {
	if len(code) < 1 || len(code) > maxPin || !allDigits(code) {
		panic(fmt.Sprintf("sim: WithPasscode(%q): a passcode is 1 to %d digits", code, maxPin))
	}
	return func(p *Phone) { p.passcode = code }
}

// WithDensity sets the screen density in dots per inch (default 420), clamped to 120..640.
func WithDensity(dpi int) Option {
	return func(p *Phone) { p.density = clamp(dpi, 120, 640) }
}

// WithoutTree starts the phone with its UI tree hidden (see HideTree).
func WithoutTree() Option {
	return func(p *Phone) { p.noTree.Store(true) }
}

// Locked starts the phone on its lock screen.
func Locked() Option {
	return func(p *Phone) { p.st.locked = true }
}

// New returns a phone, unlocked on its home screen unless Locked is given.
func New(serial string, opts ...Option) *Phone {
	p := &Phone{
		serial:   serial,
		size:     device.Size{Width: 1080, Height: 2400},
		passcode: DefaultPasscode,
		density:  DefaultDensity,
		ime:      DefaultIME,
		closed:   make(chan struct{}),
		st:       state{volume: defaultVolume, flags: defaultFlags},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Info describes the phone. It is not a device operation: it never blocks or fails.
func (p *Phone) Info() device.Info {
	return device.Info{
		Serial:   p.serial,
		Platform: device.PlatformAndroid,
		Model:    model,
		Brand:    "corral",
		Release:  "14",
		SDK:      "34",
		Tags:     []string{device.SimulatedTag},
	}
}

// Passcode returns the passcode that unlocks the phone. A real phone never tells; the node's
// unlock_phone asks a driver that can, so simulated phones unlock without configuration.
func (p *Phone) Passcode() string { return p.passcode }

// ScreenSize returns the screen size in pixels.
func (p *Phone) ScreenSize(ctx context.Context) (device.Size, error) {
	defer p.track()()
	if err := p.begin(ctx, "screen size"); err != nil {
		return device.Size{}, err
	}
	return p.size, nil
}

// Health returns nil unless the phone is closed. It honours SetDelay and ctx but never takes an
// injected fault, so faults land on the operation a test aims them at.
func (p *Phone) Health(ctx context.Context) error {
	defer p.track()()
	return p.wait(ctx, "health")
}

// Close releases operations hung by HangNext and makes every later operation fail with
// ErrClosed. It is idempotent.
func (p *Phone) Close() error {
	p.closeOnce.Do(func() { close(p.closed) })
	return nil
}

func (p *Phone) isClosed() bool {
	select {
	case <-p.closed:
		return true
	default:
		return false
	}
}

// sleep waits d, or until ctx is done or the phone closes.
func (p *Phone) sleep(ctx context.Context, op string, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return p.wrap(op, ctx.Err(), "")
	case <-p.closed:
		return p.wrap(op, ErrClosed, "the phone was closed during the operation")
	}
}

func clamp(v, lo, hi int) int {
	return max(lo, min(v, hi))
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
