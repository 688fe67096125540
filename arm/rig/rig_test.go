package rig

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/grbl"
	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/internal/geom"
	"github.com/corral-farm/corral/nodes/device"
)

// testRig is a twin and the driver of its rig.
type testRig struct {
	tw *twin.Twin
	d  *Driver
}

// servedTwin starts a twin drawn by seed, four times faster than real time, and serves its
// controller on loopback TCP.
func servedTwin(t *testing.T, seed int64) (*twin.Twin, string) {
	t.Helper()
	tw, err := twin.Start(twin.Options{Seed: seed, Speed: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tw.Close() })
	addr, err := tw.GRBL.ServeTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return tw, addr
}

// dialRig makes the driver of twin tw whose controller serves at addr.
func dialRig(ctx context.Context, t *testing.T, tw *twin.Twin, addr string) *Driver {
	t.Helper()
	c, err := grbl.DialTCP(ctx, addr, twinLink()...)
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(Config{Serial: tw.Phone.Info().Serial}, c, tw.Camera, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

func startRig(t *testing.T, seed int64, calibrate bool) testRig {
	t.Helper()
	tw, addr := servedTwin(t, seed)
	// No time of its own: a calibration renders camera frames, seconds each under -race on a
	// loaded machine (it took over 30 s at a load of 22 on 2 cores); the test's deadline bounds it.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	d := dialRig(ctx, t, tw, addr)
	if calibrate {
		lo, hi := tw.RoughArea()
		if _, err := d.CalibrateWith(ctx, tw, Area{Min: lo, Max: hi}, nil); err != nil {
			t.Fatalf("calibrate: %v", err)
		}
	}
	return testRig{tw: tw, d: d}
}

// waitLog waits for the phone's input log to hold more than n lines and returns the new ones.
func (r testRig) waitLog(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if l := r.tw.Phone.InputLog(); len(l) > n {
			return l[n:]
		}
		if time.Now().After(deadline) {
			t.Fatalf("the phone got no input after %d lines: %q", n, r.tw.Phone.InputLog())
		}
		time.Sleep(5 * time.Millisecond) // polling a condition
	}
}

var tapLine = regexp.MustCompile(`^tap (\d+) (\d+) `)

// errorMM is how far, in millimetres on the glass, the phone's pixel got is from want.
func (r testRig) errorMM(want device.Point, got []string) float64 {
	a := r.tw.ScreenToGantry.Apply(geom.Point{X: float64(want.X) + .5, Y: float64(want.Y) + .5})
	b := r.tw.ScreenToGantry.Apply(geom.Point{X: atof(got[0]) + .5, Y: atof(got[1]) + .5})
	return math.Hypot(a.X-b.X, a.Y-b.Y)
}

func atof(s string) float64 { f, _ := strconv.ParseFloat(s, 64); return f }

func TestCalibratedTapsLandWhereAsked(t *testing.T) {
	ctx := context.Background()
	for seed := int64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := startRig(t, seed, true)
			cal := r.d.Calibration()
			if cal.ValidationErrMM > 1 || cal.ResidualP95MM > 1 {
				t.Errorf("calibration: validation error %.2f mm, residual p95 %.2f mm; want both ≤ 1 mm", cal.ValidationErrMM, cal.ResidualP95MM)
			}
			for _, p := range []device.Point{{X: 100, Y: 200}, {X: 540, Y: 1200}, {X: 1000, Y: 2300}} {
				n := len(r.tw.Phone.InputLog())
				if err := r.d.Tap(ctx, p, 0); err != nil {
					t.Fatal(err)
				}
				got := r.waitLog(t, n)
				m := tapLine.FindStringSubmatch(got[0])
				if m == nil {
					t.Fatalf("tap at %v: the phone got %q, want a tap", p, got)
				}
				if e := r.errorMM(p, m[1:]); e > 1 {
					t.Errorf("tap at %v landed at (%s, %s): %.2f mm off, want ≤ 1 mm", p, m[1], m[2], e)
				}
			}
			if s := r.tw.GRBL.Snapshot(); s.FingerDown {
				t.Errorf("the finger is down after the taps: %+v", s)
			}
		})
	}
}

func TestGesturesReachThePhone(t *testing.T) {
	r := startRig(t, 7, true)
	ctx := context.Background()
	cases := []struct {
		name string
		do   func() error
		want string
	}{
		{"double tap", func() error { return r.d.DoubleTap(ctx, device.Point{X: 540, Y: 1000}) }, "doubletap "},
		{"swipe", func() error {
			return r.d.Swipe(ctx, device.Point{X: 540, Y: 1800}, device.Point{X: 540, Y: 900}, 300*time.Millisecond, 0)
		}, "swipe "},
		{"home", func() error { return r.d.PressKey(ctx, "HOME") }, "key HOME"},
		{"back", func() error { return r.d.PressKey(ctx, "BACK") }, "key BACK"},
	}
	for _, c := range cases {
		n := len(r.tw.Phone.InputLog())
		if err := c.do(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := r.waitLog(t, n)
		if !strings.HasPrefix(got[0], c.want) {
			t.Errorf("%s: the phone got %q, want %q...", c.name, got, c.want)
		}
	}
	if err := r.d.PressKey(ctx, "VOLUME_UP"); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("VOLUME_UP: %v, want ErrUnknownKey", err)
	}
}

// WAKEUP taps a dark screen awake and leaves a lit one untouched.
func TestWakeupTapsOnlyADarkScreen(t *testing.T) {
	r := startRig(t, 8, true)
	ctx := context.Background()
	moves, n := r.d.Moves(), len(r.tw.Phone.InputLog())
	if err := r.d.PressKey(ctx, "WAKEUP"); err != nil {
		t.Fatal(err)
	}
	if r.d.Moves() != moves || len(r.tw.Phone.InputLog()) != n {
		t.Fatalf("WAKEUP on a lit screen moved the finger: %d gestures, the phone got %q", r.d.Moves()-moves, r.tw.Phone.InputLog()[n:])
	}
	if err := r.tw.Sleep(ctx); err != nil {
		t.Fatal(err)
	}
	n = len(r.tw.Phone.InputLog())
	if err := r.d.PressKey(ctx, "WAKEUP"); err != nil {
		t.Fatal(err)
	}
	if r.tw.Asleep() || r.d.Moves() != moves+1 {
		t.Errorf("WAKEUP on a dark screen: asleep %v after %d gestures, want awake after 1", r.tw.Asleep(), r.d.Moves()-moves)
	}
	if got := r.tw.Phone.InputLog()[n:]; len(got) > 0 {
		t.Errorf("the tap that woke the screen landed too: %q", got)
	}
}

func TestBadInputMovesNothing(t *testing.T) {
	r := startRig(t, 3, false)
	ctx := context.Background()
	if err := r.d.Tap(ctx, device.Point{X: 10, Y: 10}, 0); !errors.Is(err, ErrNotCalibrated) {
		t.Fatalf("tap before calibration: %v, want ErrNotCalibrated", err)
	}
	lo, hi := r.tw.RoughArea()
	if _, err := r.d.CalibrateWith(ctx, r.tw, Area{Min: lo, Max: hi}, nil); err != nil {
		t.Fatal(err)
	}
	before := r.tw.GRBL.Snapshot().Pos
	for _, p := range []device.Point{{X: -1, Y: 10}, {X: 10, Y: 2400}, {X: 1080, Y: 0}, {X: math.MaxInt32, Y: 5}} {
		if err := r.d.Tap(ctx, p, 0); !errors.Is(err, ErrOutOfScreen) {
			t.Errorf("tap at %v: %v, want ErrOutOfScreen", p, err)
		}
	}
	if err := r.d.Swipe(ctx, device.Point{X: 10, Y: 10}, device.Point{X: 10, Y: 99999}, time.Second, 0); !errors.Is(err, ErrOutOfScreen) {
		t.Errorf("swipe off the screen: %v, want ErrOutOfScreen", err)
	}
	if err := r.d.Tap(ctx, device.Point{X: 10, Y: 10}, -time.Second); !errors.Is(err, ErrBadInput) {
		t.Errorf("negative hold: %v, want ErrBadInput", err)
	}
	if after := r.tw.GRBL.Snapshot().Pos; after != before {
		t.Errorf("the gantry moved from %v to %v on bad input", before, after)
	}
	if _, err := r.d.CalibrateWith(ctx, r.tw, Area{Min: geom.Point{X: math.NaN()}, Max: hi}, nil); !errors.Is(err, ErrBadInput) {
		t.Errorf("calibrate with a NaN area: %v, want ErrBadInput", err)
	}
}

func TestAlarmStopsGesturesUntilRecovered(t *testing.T) {
	r := startRig(t, 5, true)
	ctx := context.Background()
	r.tw.GRBL.InjectAlarm(1) // a hard limit
	waitFor(t, func() bool { return r.d.arm.Status().State == grbl.StateAlarm })
	err := r.d.Tap(ctx, device.Point{X: 500, Y: 500}, 0)
	if !errors.Is(err, ErrAlarm) || !strings.Contains(err.Error(), "recover") {
		t.Fatalf("tap during an alarm: %v, want ErrAlarm with a hint to recover", err)
	}
	if r.d.Health(ctx) == nil {
		t.Error("Health is nil during an alarm")
	}
	if err := r.d.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.d.Tap(ctx, device.Point{X: 500, Y: 500}, 0); err != nil {
		t.Fatalf("tap after Recover: %v", err)
	}
	if r.tw.GRBL.Snapshot().FingerDown {
		t.Error("the finger is down")
	}
}

func TestCancelledSwipeLeavesTheFingerUp(t *testing.T) {
	r := startRig(t, 9, true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- r.d.Swipe(ctx, device.Point{X: 540, Y: 2000}, device.Point{X: 540, Y: 200}, 20*time.Second, 0)
	}()
	waitFor(t, func() bool { return r.tw.GRBL.Snapshot().FingerDown })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled swipe: %v, want context.Canceled", err)
	}
	if s := r.tw.GRBL.Snapshot(); s.FingerDown || s.Spindle {
		t.Fatalf("after a cancelled swipe the finger is down: %+v", s)
	}
	// The rig takes work again.
	if r.d.arm.Status().State == grbl.StateAlarm {
		if err := r.d.Recover(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.d.Tap(context.Background(), device.Point{X: 540, Y: 1200}, 0); err != nil {
		t.Fatalf("tap after the cancelled swipe: %v", err)
	}
}

func TestLostLinkMakesTheRigUnhealthy(t *testing.T) {
	r := startRig(t, 11, true)
	r.tw.GRBL.Disconnect()
	select {
	case <-r.d.arm.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the client did not notice the link was lost")
	}
	ctx := context.Background()
	if err := r.d.Health(ctx); !errors.Is(err, grbl.ErrLinkLost) {
		t.Errorf("Health: %v, want ErrLinkLost", err)
	}
	if err := r.d.Tap(ctx, device.Point{X: 540, Y: 1200}, 0); !errors.Is(err, grbl.ErrLinkLost) {
		t.Errorf("tap: %v, want ErrLinkLost", err)
	}
}

// waitFor waits for cond up to a minute: a calibration's first touch took over 10 s with the
// machine at load 14–18 (make test runs packages in parallel, -race).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within a minute")
		}
		time.Sleep(5 * time.Millisecond) // polling a condition
	}
}

// A controller left with the finger down by a client that went away (over TCP it keeps its
// state) has it lifted by the next rig that connects, before anything else.
func TestConnectingLiftsAFingerLeftDown(t *testing.T) {
	tw, addr := servedTwin(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	gone, err := grbl.DialTCP(ctx, addr, twinLink()...)
	if err != nil {
		t.Fatal(err)
	}
	if err := gone.SpindleOn(ctx, 1000); err != nil {
		t.Fatal(err)
	}
	if err := gone.Barrier(ctx); err != nil {
		t.Fatal(err)
	}
	_ = gone.Close()
	if !tw.GRBL.Snapshot().FingerDown {
		t.Fatal("the finger is not down after M3 and the client going away")
	}
	d := dialRig(ctx, t, tw, addr)
	if err := d.rest(ctx); err != nil {
		t.Fatal(err)
	}
	if s := tw.GRBL.Snapshot(); s.FingerDown || s.Spindle {
		t.Fatalf("the finger is still down after the rig connected: %+v", s)
	}
}
