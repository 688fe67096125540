package twin

import (
	"context"
	"log/slog"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/corral-farm/corral/arm/grbl/grblsim"
	"github.com/corral-farm/corral/internal/geom"
	"github.com/corral-farm/corral/nodes/device"
)

// What a touch screen makes of a finger's path, as iOS does.
const (
	slopPx         = 12                     // a touch that moves less than this is a tap
	repeatMM       = 0.05                   // the gantry lands within this of where it was sent, in x and y
	doubleTapAfter = 300 * time.Millisecond // a second tap this soon, this close, makes a double tap
	edgeFrac       = 0.03                   // a swipe from this close to an edge is a system gesture
	homeTravel     = 0.15                   // ... up from the bottom by this much of the height: HOME
	backTravel     = 0.2                    // ... right from the left edge by this much of the width: BACK
	switcherStill  = 300 * time.Millisecond // ... up from the bottom, still this long before the lift: the app switcher
	stillPx        = 3                      // a finger that moves less than this between samples is still
	cardTravel     = 0.2                    // in the switcher, a swipe up by this much of the height quits the front app
)

// screenTarget is what the touch screen drives: the simulated phone.
type screenTarget interface {
	Tap(ctx context.Context, p device.Point, hold time.Duration) error
	DoubleTap(ctx context.Context, p device.Point) error
	Swipe(ctx context.Context, from, to device.Point, d, hold time.Duration) error
	PressKey(ctx context.Context, key string) error
	ForegroundApp(ctx context.Context) (string, error)
	TerminateApp(ctx context.Context, pkg string) error
}

// touchScreen turns the finger's events (gantry millimetres) into the phone's input (screen
// pixels) through the rig's true geometry: a tap where the finger came down and lifted within
// slopPx, a swipe otherwise, HOME and BACK for the iPhone's edge swipes, and its app switcher
// (up from the bottom edge, still before the lift), where a flick up quits the app in front
// and a tap or HOME leaves. A tap waits doubleTapAfter for a second one before it is
// delivered, as a phone with double-tap recognisers does. Touches off the glass are ignored;
// one on a dark display wakes it. In calibration mode touches are not delivered but reported
// where they landed.
type touchScreen struct {
	phone    screenTarget
	toScreen geom.Affine // gantry mm → screen px
	size     device.Size
	log      *slog.Logger
	speed    float64 // the gantry's time runs this much faster than the clock
	rng      *rand.Rand

	mu       sync.Mutex
	down     bool
	start    geom.Point // where the finger came down, px
	last     geom.Point
	downAt   time.Time
	movedAt  time.Time // when it first left the slop circle; zero while it has not
	stillAt  time.Time // since when it has not moved
	switcher bool      // the app switcher shows
	pending  *geom.Point
	pendAt   time.Time // when the pending tap's finger lifted (sim time)
	pendHold time.Duration
	flush    *time.Timer
	probes   chan<- geom.Point // calibration mode: where touches landed
	asleep   bool              // the display is off: the next touch wakes it and does nothing else
	off      geom.Point        // this touch's repeatability error, mm
}

func (t *touchScreen) onGlass(p geom.Point) bool {
	return p.X >= 0 && p.Y >= 0 && p.X < float64(t.size.Width) && p.Y < float64(t.size.Height)
}

// finger takes one event of the simulator's, in order. Each touch lands off where the gantry
// was sent by up to repeatMM, as a real gantry's repeatability allows, the same for the
// whole touch.
func (t *touchScreen) finger(e grblsim.FingerEvent) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e.Kind == grblsim.FingerDown {
		t.off = geom.Point{X: (t.rng.Float64()*2 - 1) * repeatMM, Y: (t.rng.Float64()*2 - 1) * repeatMM}
	}
	p := t.toScreen.Apply(geom.Point{X: e.X, Y: e.Y}.Add(t.off))
	switch e.Kind {
	case grblsim.FingerDown:
		if !t.onGlass(p) {
			t.log.Warn("twin: the finger came down off the glass", "x_mm", e.X, "y_mm", e.Y)
			return
		}
		t.down, t.start, t.last, t.downAt, t.movedAt, t.stillAt = true, p, p, e.At, time.Time{}, e.At
	case grblsim.FingerMove:
		if !t.down {
			return
		}
		if t.onGlass(p) {
			if dist(p, t.last) >= stillPx {
				t.stillAt = e.At
			}
			t.last = p
		}
		if t.movedAt.IsZero() && dist(p, t.start) > slopPx {
			t.movedAt = e.At
		}
	case grblsim.FingerUp:
		if !t.down {
			return
		}
		t.down = false
		t.lifted(e.At)
	}
}

// lifted decides what the touch that just ended was.
func (t *touchScreen) lifted(at time.Time) {
	if t.probes != nil { // a digitiser tells whole pixels: the pixel's centre
		select {
		case t.probes <- geom.Point{X: math.Floor(t.start.X) + .5, Y: math.Floor(t.start.Y) + .5}:
		default:
			t.log.Warn("twin: a calibration touch was dropped: nobody reads them")
		}
		return
	}
	if t.asleep {
		t.asleep = false
		return
	}
	w, h := float64(t.size.Width), float64(t.size.Height)
	fromBottom := t.start.Y >= h*(1-edgeFrac) && t.start.Y-t.last.Y >= h*homeTravel
	if t.switcher {
		t.inSwitcher(fromBottom)
		return
	}
	if dist(t.last, t.start) <= slopPx {
		t.tapped(t.start, at, at.Sub(t.downAt))
		return
	}
	t.deliverPending()
	from, to := pt(t.start), pt(t.last)
	switch {
	case fromBottom && at.Sub(t.stillAt) >= switcherStill:
		t.switcher = true
	case fromBottom:
		t.deliver("home", func(ctx context.Context) error { return t.phone.PressKey(ctx, "HOME") })
	case t.start.X <= w*edgeFrac && t.last.X-t.start.X >= w*backTravel:
		t.deliver("back", func(ctx context.Context) error { return t.phone.PressKey(ctx, "BACK") })
	default:
		hold := time.Duration(0)
		if !t.movedAt.IsZero() {
			hold = t.movedAt.Sub(t.downAt)
		}
		d := at.Sub(t.downAt) - hold
		t.deliver("swipe", func(ctx context.Context) error { return t.phone.Swipe(ctx, from, to, d, hold) })
	}
}

// inSwitcher is a touch while the app switcher shows: a flick up on the front card quits its
// app; HOME, a tap or anything else leaves the switcher (to the home screen, or back to the
// app: either way the phone shows what it showed).
func (t *touchScreen) inSwitcher(fromBottom bool) {
	if !fromBottom && t.start.Y-t.last.Y >= float64(t.size.Height)*cardTravel {
		t.deliver("quit from the app switcher", func(ctx context.Context) error {
			pkg, err := t.phone.ForegroundApp(ctx)
			if err != nil || pkg == "" {
				return err
			}
			return t.phone.TerminateApp(ctx, pkg)
		})
		return
	}
	t.switcher = false
	if fromBottom {
		t.deliver("home", func(ctx context.Context) error { return t.phone.PressKey(ctx, "HOME") })
	}
}

// tapped holds a tap back for a possible second one.
func (t *touchScreen) tapped(p geom.Point, at time.Time, hold time.Duration) {
	if t.pending != nil && at.Sub(t.pendAt) <= doubleTapAfter && dist(p, *t.pending) <= 2*slopPx {
		q := pt(*t.pending)
		t.cancelPending()
		t.deliver("double tap", func(ctx context.Context) error { return t.phone.DoubleTap(ctx, q) })
		return
	}
	t.deliverPending()
	t.pending, t.pendAt, t.pendHold = &p, at, hold
	t.flush = time.AfterFunc(time.Duration(float64(doubleTapAfter)/t.speed), func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.pending == &p {
			t.deliverPending()
		}
	})
}

func (t *touchScreen) cancelPending() {
	if t.flush != nil {
		t.flush.Stop()
	}
	t.pending, t.flush = nil, nil
}

// deliverPending delivers the tap held back, if any.
func (t *touchScreen) deliverPending() {
	if t.pending == nil {
		return
	}
	q, hold := pt(*t.pending), t.pendHold
	t.cancelPending()
	t.deliver("tap", func(ctx context.Context) error { return t.phone.Tap(ctx, q, hold) })
}

// deliver gives the phone one input. The phone answers at once (the simulated phone never
// waits on a gesture's duration), so this runs under t.mu and inputs keep their order.
func (t *touchScreen) deliver(what string, input func(ctx context.Context) error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := input(ctx); err != nil {
		t.log.Warn("twin: the phone refused a touch", "input", what, "err", err)
	}
}

// calibrating switches calibration mode on (probes non-nil) or off.
func (t *touchScreen) calibrating(probes chan<- geom.Point) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.deliverPending()
	t.probes = probes
}

// sleep turns the display off (on false: on).
func (t *touchScreen) sleep(on bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.asleep = on
}

// dark says whether the display is off.
func (t *touchScreen) dark() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.asleep
}

func dist(a, b geom.Point) float64 { return math.Hypot(a.X-b.X, a.Y-b.Y) }

func pt(p geom.Point) device.Point {
	return device.Point{X: int(math.Floor(p.X)), Y: int(math.Floor(p.Y))}
}
