package android

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/nodes/android/adbsim"
	"github.com/corral-farm/corral/nodes/device"
)

// eventually polls cond until it holds, failing the test after 5 s.
func eventually(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("%s: not within 5s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// newTaps waits until dev has recorded n taps after the first `before` and returns them.
func newTaps(tb testing.TB, dev *adbsim.Device, before, n int) []adbsim.Tap {
	tb.Helper()
	eventually(tb, fmt.Sprintf("%d new taps", n), func() bool { return len(dev.Taps()) >= before+n })
	return dev.Taps()[before:]
}

// lastInput waits until the phone's input log has grown past before and returns its last line.
func lastInput(tb testing.TB, dev *adbsim.Device, before int) string {
	tb.Helper()
	eventually(tb, "a new input on the phone", func() bool { return len(dev.Phone().InputLog()) > before })
	log := dev.Phone().InputLog()
	return log[len(log)-1]
}

// count counts the commands equal to cmd, or starting with it when it ends with a space.
func count(cmds []string, cmd string) int {
	n := 0
	for _, c := range cmds {
		if c == cmd || strings.HasSuffix(cmd, " ") && strings.HasPrefix(c, cmd) {
			n++
		}
	}
	return n
}

// forgetDisplay drops the cached screen size and geometry, so the next touch asks the device.
func (d *Driver) forgetDisplay() {
	d.size.forget()
	d.geom.mu.Lock()
	d.geom.at = time.Time{}
	d.geom.mu.Unlock()
}

// A tap written to the touchscreen lands on the pixel `input tap` would have touched: whatever
// the panel's range (0–4095 by default, not pixels), the display's rotation and its size
// override. And it sends no `input` command.
func TestTapLandsOnThePixel(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     []adbsim.Option
		rotation int
		override string
		touch    string
	}{
		{"panel 0-4095", nil, 0, "", "/dev/input/event2 (corral_touchscreen, 0-4095 x 0-4095)"},
		{"rotated 90", nil, 1, "", ""},
		{"rotated 180", nil, 2, "", ""},
		{"rotated 270", nil, 3, "", ""},
		{"panel in pixels", []adbsim.Option{adbsim.WithTouchPanel(1079, 2399)}, 0, "", "/dev/input/event2 (corral_touchscreen, 0-1079 x 0-2399)"},
		{"fine panel, size override, rotated", []adbsim.Option{adbsim.WithTouchPanel(10799, 23999)}, 3, "720x1600", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dev, d := newDevice(t, append(tc.opts, adbsim.WithInputStartup(0))...)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if got := d.Info().Extra["touch"]; tc.touch != "" && got != tc.touch {
				t.Errorf("Info.Extra[touch] %q, want %q", got, tc.touch)
			}
			if tc.override != "" {
				if _, err := d.shell(ctx, "test", "wm size "+tc.override); err != nil {
					t.Fatal(err)
				}
			}
			if err := dev.SetRotation(tc.rotation); err != nil {
				t.Fatal(err)
			}
			d.forgetDisplay()
			s, err := d.ScreenSize(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []device.Point{{}, {X: s.Width - 1, Y: s.Height - 1}, {X: s.Width / 2, Y: s.Height / 3}, {X: 1, Y: s.Height - 2}, {X: s.Width - 3}} {
				before := len(dev.Taps())
				if _, err := d.shell(ctx, "test", fmt.Sprintf("input tap %d %d", p.X, p.Y)); err != nil {
					t.Fatal(err)
				}
				want := newTaps(t, dev, before, 1)[0].Point
				cmds := newCommands(t, dev, func() error { return d.Tap(ctx, p, 0) })
				if got := newTaps(t, dev, before+1, 1)[0].Point; got != want {
					t.Errorf("%v on the %v display landed at %v; `input tap` lands at %v", p, s, got, want)
				}
				if n := count(cmds, "input "); n != 0 {
					t.Errorf("the tap sent %q", cmds)
				}
			}
		})
	}
}

// A double tap's two taps land 40–300 ms apart (from the first lift to the second touch), as
// Android's double-tap detector wants. The phone timestamps events as they arrive (so does the
// simulated one) and the host times them: a host that does not run the driver, the adb server
// or the simulated phone for a while (a loaded 2-core machine: 317 ms, and 434 ms while this
// process's goroutines woke at most 43 ms late, so the adb server's) moves the second touch
// as a real phone would see it, which no driver can help. So a few double taps out of the
// window are tried again, and said; a driver whose timing is off misses every time, and fails.
func TestDoubleTapEventsInsideTheWindow(t *testing.T) {
	dev, d := newDevice(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const want, maxMissed = 20, 5 // 25 double taps: 50 taps, inside the 64 the device keeps
	p := device.Point{X: 540, Y: 1200}
	var lo, hi time.Duration
	var missed []string
	for inside := 0; inside < want; {
		before := len(dev.Taps())
		cmds := newCommands(t, dev, func() error { return d.DoubleTap(ctx, p) })
		taps := newTaps(t, dev, before, 2)
		if len(taps) != 2 || taps[0].Point != p || taps[1].Point != p || count(cmds, "input ") != 0 {
			t.Fatalf("taps %+v, commands %q; want two at %v and no input command", taps, cmds, p)
		}
		gap := taps[1].At.Sub(taps[0].Up)
		// The host rests the finger 10 ms; the device may read both reports at once when busy.
		rest := taps[0].Up.Sub(taps[0].At)
		if gap < 40*time.Millisecond || gap > 300*time.Millisecond || rest < 0 || rest > 300*time.Millisecond {
			missed = append(missed, fmt.Sprintf("%v apart after a rest of %v", gap.Round(time.Millisecond), rest.Round(time.Millisecond)))
			if len(missed) > maxMissed {
				t.Fatalf("%d double taps outside Android's 40–300 ms from the first lift to the second touch (or with a rest of more than a few ms): %s",
					len(missed), strings.Join(missed, "; "))
			}
			t.Logf("double tap %v outside the window (a host that did not keep time?): tried again", missed[len(missed)-1])
			continue
		}
		if inside == 0 || gap < lo {
			lo = gap
		}
		hi = max(hi, gap)
		inside++
	}
	t.Logf("gaps %v to %v; %d missed", lo, hi, len(missed))
}

// Swipes, long presses and drags land as such: the phone sees where they began and ended and
// how long the finger rested and moved.
func TestSwipeLongPressAndDragEvents(t *testing.T) {
	dev, d := newDevice(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	type line struct {
		verb           string
		x1, y1, x2, y2 int
		dur, hold      time.Duration
	}
	parse := func(s string) line {
		var l line
		var dur, hold string
		if strings.HasPrefix(s, "swipe ") {
			_, _ = fmt.Sscanf(s, "swipe %d %d %d %d dur=%s hold=%s", &l.x1, &l.y1, &l.x2, &l.y2, &dur, &hold)
		} else {
			_, _ = fmt.Sscanf(s, "tap %d %d hold=%s", &l.x1, &l.y1, &hold)
			l.x2, l.y2 = l.x1, l.y1
		}
		l.verb, _, _ = strings.Cut(s, " ")
		l.dur, _ = time.ParseDuration(dur)
		l.hold, _ = time.ParseDuration(hold)
		return l
	}
	within := func(what string, got, lo, hi time.Duration) {
		t.Helper()
		if got < lo || got > hi {
			t.Errorf("%s %v, want %v to %v", what, got, lo, hi)
		}
	}
	from, to := device.Point{X: 540, Y: 1800}, device.Point{X: 540, Y: 600}

	n := len(dev.Phone().InputLog())
	if err := d.Tap(ctx, from, 0); err != nil {
		t.Fatal(err)
	}
	if l := parse(lastInput(t, dev, n)); l.verb != "tap" || l.x1 != 540 || l.y1 != 1800 || l.hold != 0 {
		t.Errorf("tap landed as %+v", l)
	}

	n = len(dev.Phone().InputLog())
	if err := d.Swipe(ctx, from, to, 300*time.Millisecond, 0); err != nil {
		t.Fatal(err)
	}
	l := parse(lastInput(t, dev, n))
	if l.verb != "swipe" || l.x1 != 540 || l.y1 != 1800 || l.x2 != 540 || l.y2 != 600 || l.hold != 0 {
		t.Errorf("swipe landed as %+v", l)
	}
	within("swipe duration", l.dur, 250*time.Millisecond, time.Second)

	n = len(dev.Phone().InputLog())
	if err := d.Tap(ctx, from, 800*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	l = parse(lastInput(t, dev, n))
	if l.verb != "tap" || l.x1 != 540 || l.y1 != 1800 {
		t.Errorf("long press landed as %+v", l)
	}
	within("long press hold", l.hold, 700*time.Millisecond, 2*time.Second)

	// A drag asked to hold 100 ms holds past Android's long-press timeout anyway.
	n = len(dev.Phone().InputLog())
	if err := d.Swipe(ctx, from, to, 400*time.Millisecond, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	l = parse(lastInput(t, dev, n))
	if l.verb != "swipe" || l.y1 != 1800 || l.y2 != 600 {
		t.Errorf("drag landed as %+v", l)
	}
	within("drag hold", l.hold, 500*time.Millisecond, 2*time.Second)
	within("drag duration", l.dur, 300*time.Millisecond, 2*time.Second)
}

// Keys on the phone's buttons are pressed on their event devices, each through a stream of
// its own opened once; other keys are `input keyevent`.
func TestKeysThroughKeyDevices(t *testing.T) {
	dev, d := newDevice(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if got, want := d.Info().Extra["keys"], "input events for APP_SWITCH, BACK, HOME, POWER, VOLUME_DOWN, VOLUME_UP; input keyevent for the others"; got != want {
		t.Errorf("Info.Extra[keys] %q, want %q", got, want)
	}
	var all []string
	for range 2 {
		for key, want := range map[string]string{"home": "key HOME", "BACK": "key BACK", "volume up": "key VOLUME_UP",
			"VOLUME_DOWN": "key VOLUME_DOWN", "power": "key POWER"} {
			n := len(dev.Phone().InputLog())
			all = append(all, newCommands(t, dev, func() error { return d.PressKey(ctx, key) })...)
			if got := lastInput(t, dev, n); got != want {
				t.Errorf("%s: the phone got %q, want %q", key, got, want)
			}
		}
		all = append(all, newCommands(t, dev, func() error { return d.PressKey(ctx, "recents") })...)
	}
	// The device logs a stream's command as it starts it, which may be after the call that
	// opened it returned: its whole log counts them.
	if cmds := dev.Commands(); count(all, "input ") != 0 || count(cmds, "cat > /dev/input/event0") != 1 || count(cmds, "cat > /dev/input/event1") != 1 {
		t.Errorf("the keys sent %q (all: %q); want one stream per key device and no input command", all, cmds)
	}
	if got := newCommands(t, dev, func() error { return d.PressKey(ctx, "enter") }); len(got) != 1 || got[0] != "input keyevent KEYCODE_ENTER" {
		t.Errorf("ENTER, which no key device has, sent %q", got)
	}
}

// Taps reuse one stream; one that the phone killed is opened again at the next tap.
func TestEventStreamReusedAndReopened(t *testing.T) {
	dev, d := newDevice(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := device.Point{X: 100, Y: 200}
	before := len(dev.Taps())
	cmds := newCommands(t, dev, func() error {
		for range 10 {
			if err := d.Tap(ctx, p, 0); err != nil {
				return err
			}
		}
		return nil
	})
	newTaps(t, dev, before, 10)
	// The device logs a stream's command as it starts it, which may be after the call that
	// opened it returned: its whole log counts them.
	if count(dev.Commands(), "cat > /dev/input/event2") != 1 || count(cmds, "input ") != 0 {
		t.Errorf("10 taps sent %q; want one stream and no input command", cmds)
	}
	if n := dev.KillInputWriters(); n != 1 {
		t.Fatalf("%d streams killed, want 1", n)
	}
	cmds = nil
	for range 3 {
		before = len(dev.Taps())
		cmds = append(cmds, newCommands(t, dev, func() error { return d.Tap(ctx, p, 0) })...)
		if taps := newTaps(t, dev, before, 1); taps[0].Point != (device.Point{X: 100, Y: 200}) {
			t.Errorf("after the kill the tap landed at %v", taps[0].Point)
		}
	}
	if count(dev.Commands(), "cat > /dev/input/event2") != 2 || count(cmds, "input ") != 0 {
		t.Errorf("3 taps after the kill sent %q; want the stream opened again once", cmds)
	}
	if n := dev.InputWriters(); n != 1 {
		t.Errorf("%d streams open after the kill, want 1 (opened again once)", n)
	}
	// Closing the driver closes its streams.
	_ = d.Close()
	eventually(t, "the stream closed with the driver", func() bool { return dev.InputWriters() == 0 })
}

// Without a touchscreen it may write, the driver taps with `input` and says why in Info.Extra
// (get_device_status shows it).
func TestTouchFallbackReported(t *testing.T) {
	for _, tc := range []struct {
		name        string
		opts        []adbsim.Option
		touch, keys string
		home        string
	}{
		{"no touchscreen", []adbsim.Option{adbsim.WithoutTouchscreen()}, "input command (no touchscreen in getevent -lp)",
			"input events for APP_SWITCH, BACK, HOME, POWER, VOLUME_DOWN, VOLUME_UP; input keyevent for the others", ""},
		{"not writable", []adbsim.Option{adbsim.WithInputDevicesDenied()},
			"input command (no writable touchscreen: /dev/input/event2: permission denied)", "input keyevent", "input keyevent KEYCODE_HOME"},
		{"unknown ABI", []adbsim.Option{adbsim.WithABI("loongarch64")},
			`input command (ro.product.cpu.abi is "loongarch64": the size of its input events is not known)`, "input keyevent", "input keyevent KEYCODE_HOME"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dev, d := newDevice(t, append(tc.opts, adbsim.WithInputStartup(0))...)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if info := d.Info(); info.Extra["touch"] != tc.touch || info.Extra["keys"] != tc.keys {
				t.Errorf("Info.Extra %q; want touch %q, keys %q", info.Extra, tc.touch, tc.keys)
			}
			if got := newCommands(t, dev, func() error { return d.Tap(ctx, device.Point{X: 10, Y: 20}, 0) }); count(got, "input tap 10 20") != 1 {
				t.Errorf("tap sent %q", got)
			}
			got := newCommands(t, dev, func() error { return d.PressKey(ctx, "HOME") })
			if tc.home == "" && count(got, "input ") != 0 || tc.home != "" && count(got, tc.home) != 1 {
				t.Errorf("HOME sent %q", got)
			}
		})
	}
}

// A stream that fails twice (the phone no longer lets the shell write the device) makes that
// call an `input` command, and the log says why.
func TestTouchFallsBackWhenTheStreamFails(t *testing.T) {
	addr := sharedServer(t)
	dev := startDevice(t, adbsim.WithInputStartup(0))
	shared.srv.connect(t, dev)
	t.Cleanup(func() { shared.srv.disconnect(dev) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var logs logtest.Recorder
	d, err := New(ctx, addr, dev.Serial(), WithLogger(slog.New(&logs)))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p := device.Point{X: 300, Y: 400}
	if err := d.Tap(ctx, p, 0); err != nil {
		t.Fatal(err)
	}
	dev.SetInputDevicesDenied(true)
	dev.KillInputWriters()
	cmds := newCommands(t, dev, func() error { return d.Tap(ctx, p, 300*time.Millisecond) })
	// The first try may still find the killed stream, which fails as well.
	if n := count(dev.Commands(), "cat > /dev/input/event2"); n < 2 || n > 3 || count(cmds, "input swipe 300 400 300 400 300") != 1 {
		t.Errorf("the tap sent %q (all: %q); want the stream tried twice, then input", cmds, dev.Commands())
	}
	var logged strings.Builder
	for _, r := range logs.Records() {
		logged.WriteString(r.Message)
		r.Attrs(func(a slog.Attr) bool { fmt.Fprintf(&logged, " %s=%v", a.Key, a.Value); return true })
		logged.WriteByte('\n')
	}
	for _, want := range []string{"android event stream failed; opening it again", "failed twice", "Permission denied"} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, logged.String())
		}
	}
}

// Cancelling a long press or a slow swipe mid-way lifts the finger before the call returns,
// and nothing more of it is written.
func TestCancelledGestureLiftsTheFinger(t *testing.T) {
	dev, d := newDevice(t)
	p, q := device.Point{X: 500, Y: 1500}, device.Point{X: 500, Y: 300}
	for name, gesture := range map[string]func(ctx context.Context) error{
		"long press": func(ctx context.Context) error { return d.Tap(ctx, p, time.Minute) },
		"slow swipe": func(ctx context.Context) error { return d.Swipe(ctx, p, q, time.Minute, 0) },
		"drag":       func(ctx context.Context) error { return d.Swipe(ctx, p, q, time.Minute, time.Second) },
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			n := len(dev.Phone().InputLog())
			errc := goCall(func() error { return gesture(ctx) })
			eventually(t, "the finger down", func() bool { return dev.TouchesDown() == 1 })
			cancelled := time.Now()
			cancel()
			if err := endsWithin(t, errc, cancelled, "the cancel"); !errors.Is(err, context.Canceled) {
				t.Errorf("error %v, want context.Canceled", err)
			}
			eventually(t, "the finger lifted", func() bool { return dev.TouchesDown() == 0 })
			// The lifted finger lands as a touch, and the next touch is the next thing the phone
			// sees: nothing of the cancelled gesture follows.
			ctx2, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel2()
			if err := d.Tap(ctx2, q, 0); err != nil {
				t.Fatal(err)
			}
			eventually(t, "the next tap", func() bool { return len(dev.Phone().InputLog()) >= n+2 })
			log := dev.Phone().InputLog()[n:]
			if len(log) != 2 || !strings.HasPrefix(log[0], "tap 500 1500 ") && !strings.HasPrefix(log[0], "swipe 500 1500 ") ||
				log[1] != "tap 500 300 hold=0s" {
				t.Errorf("the phone got %q; want the lifted finger, then the next tap", log)
			}
		})
	}
}

// A 32-bit phone (armeabi-v7a) takes 16-byte events.
func TestEvents32Bit(t *testing.T) {
	dev, d := newDevice(t, adbsim.WithABI("armeabi-v7a"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	before := len(dev.Taps())
	if err := d.Tap(ctx, device.Point{X: 1000, Y: 2000}, 0); err != nil {
		t.Fatal(err)
	}
	if got := newTaps(t, dev, before, 1)[0].Point; got != (device.Point{X: 1000, Y: 2000}) {
		t.Errorf("tap landed at %v", got)
	}
	if d.touch == nil || d.touch.stream.size != 16 {
		t.Errorf("touch %+v; want events of 16 bytes", d.touch)
	}
}
