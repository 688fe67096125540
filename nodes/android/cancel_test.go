package android

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/android/adbsim"
	"github.com/corral-farm/corral/nodes/device"
)

// stopWithin bounds how long after its cancel, deadline, Close or the device's death a call of
// these tests may take to return. It is not a speed target: every such call would otherwise
// run a minute (a device command held a minute), or for ever (an endless push, a server that
// never answers), so a bound far short of that still fails a driver that ignores its ctx,
// while a loaded 2-core machine under -race stays far within it. How soon a cancelled call
// ends is measured by BenchmarkAbort in bench/ (`make bench`: target 200 ms, through the whole
// farm).
const stopWithin = 5 * time.Second

// endsWithin waits for the call that reports on errc and returns its error, failing the test if
// it has not returned within stopWithin of from (its cancel, deadline, …; event names it).
func endsWithin(t *testing.T, errc <-chan error, from time.Time, event string) error {
	t.Helper()
	select {
	case err := <-errc:
		if took := time.Since(from); took > stopWithin {
			t.Errorf("returned %v after %s; want within %v", took.Round(time.Millisecond), event, stopWithin)
		}
		return err
	case <-time.After(time.Until(from.Add(stopWithin))):
		t.Fatalf("still running %v after %s", stopWithin, event)
		return nil
	}
}

// goCall runs fn on its own goroutine and delivers its error.
func goCall(fn func() error) <-chan error {
	errc := make(chan error, 1)
	go func() { errc <- fn() }()
	return errc
}

// A slow device command ends soon after its ctx is cancelled, or its deadline passes, instead
// of running its minute; and the next call works.
func TestCancelSlowCommand(t *testing.T) {
	dev, d := newDevice(t, adbsim.WithInputDevicesDenied()) // taps are `input` commands
	p := device.Point{X: 10, Y: 20}
	ops := map[string]func(ctx context.Context) error{
		"tap":        func(ctx context.Context) error { return d.Tap(ctx, p, 0) },
		"screenshot": func(ctx context.Context) error { _, err := d.Screenshot(ctx); return err },
		"source":     func(ctx context.Context) error { _, err := d.Source(ctx); return err },
	}
	want := map[string]string{"tap": "input tap 10 20", "screenshot": "screencap", "source": "uiautomator dump /dev/tty"}
	for name, op := range ops {
		t.Run(name+" cancelled", func(t *testing.T) {
			dev.SetDelay(time.Minute)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errc := make(chan error, 1)
			before := len(dev.Commands())
			go func() { errc <- op(ctx) }()
			waitNewCommand(t, dev, before, want[name])
			cancelled := time.Now()
			cancel()
			if err := endsWithin(t, errc, cancelled, "the cancel"); !errors.Is(err, context.Canceled) {
				t.Errorf("error %v, want context.Canceled", err)
			}
			dev.SetDelay(0)
			ctx2, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel2()
			if err := op(ctx2); err != nil {
				t.Errorf("the next call: %v", err)
			}
		})
	}
	t.Run("deadline", func(t *testing.T) {
		dev.SetDelay(time.Minute)
		defer dev.SetDelay(0)
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		deadline, _ := ctx.Deadline()
		errc := goCall(func() error { return d.Tap(ctx, p, 0) })
		if err := endsWithin(t, errc, deadline, "the deadline"); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error %v, want context.DeadlineExceeded", err)
		}
	})
	t.Run("push cancelled", func(t *testing.T) {
		const path = "/dev/zero" // an endless file: only the deadline can end its push
		if _, err := os.Stat(path); err != nil {
			t.Skipf("nothing endless to push: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		deadline, _ := ctx.Deadline()
		before := len(dev.Commands())
		errc := goCall(func() error { _, err := d.InstallApp(ctx, path); return err })
		if err := endsWithin(t, errc, deadline, "the deadline"); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error %v, want context.DeadlineExceeded", err)
		}
		// The driver removes what it pushed, in the background; wait for it, so that the next
		// subtest sees no command of this one.
		waitNewCommand(t, dev, before, "rm -f "+installPath)
	})
	t.Run("already cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		before := len(dev.Commands())
		if err := d.Tap(ctx, p, 0); !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
		if got := dev.Commands()[before:]; len(got) != 0 {
			t.Errorf("a cancelled call still sent %q", got)
		}
	})
}

// A device that disappears mid-call fails the call promptly with "device disconnected"; one
// whose driver is closed (the node removed it) too; and it comes back under the same serial.
func TestDisconnectMidCall(t *testing.T) {
	dev, d := newDevice(t, adbsim.WithInputDevicesDenied()) // taps are `input` commands
	p := device.Point{X: 1, Y: 2}

	dev.SetDelay(time.Minute)
	errc := make(chan error, 1)
	before := len(dev.Commands())
	go func() { errc <- d.Tap(context.Background(), p, 0) }()
	waitNewCommand(t, dev, before, "input tap 1 2")
	killed := time.Now()
	dev.Kill()
	err := endsWithin(t, errc, killed, "the device died")
	if !errors.Is(err, ErrDisconnected) || !strings.Contains(err.Error(), "device disconnected") {
		t.Errorf("error %v, want device disconnected", err)
	}
	t.Logf("in-flight call failed %v after the kill: %v", time.Since(killed).Round(time.Millisecond), err)
	start := time.Now()
	if err := endsWithin(t, goCall(func() error { return d.Tap(context.Background(), p, 0) }), start, "the call on the dead device began"); !errors.Is(err, ErrDisconnected) {
		t.Errorf("a call on the dead device: %v, want device disconnected", err)
	}

	dev.SetDelay(0)
	if err := dev.Restart(); err != nil {
		t.Fatal(err)
	}
	shared.srv.connect(t, dev)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d2, err := New(ctx, shared.srv.addr(), dev.Serial())
	if err != nil {
		t.Fatal(err)
	}
	if err := d2.Tap(ctx, p, 0); err != nil {
		t.Errorf("after reconnecting: %v", err)
	}

	// Closing the driver (the node removing the device) fails its call in flight at once.
	dev.SetDelay(time.Minute)
	before = len(dev.Commands())
	go func() { errc <- d2.Tap(context.Background(), p, 0) }()
	waitNewCommand(t, dev, before, "input tap 1 2")
	closed := time.Now()
	_ = d2.Close()
	if err := endsWithin(t, errc, closed, "Close"); !errors.Is(err, ErrDisconnected) {
		t.Errorf("error %v, want device disconnected", err)
	}
	dev.SetDelay(0)
}

func TestNewFailsForUnknownDevice(t *testing.T) {
	addr := sharedServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := New(ctx, addr, "no-such-device")
	if !errors.Is(err, ErrDisconnected) {
		t.Errorf("New for a device the server does not have: %v", err)
	}
	_, err = New(ctx, "127.0.0.1:1", "x")
	if !errors.Is(err, ErrServer) && !errors.Is(err, ErrDisconnected) {
		t.Errorf("New without an adb server: %v", err)
	}
}

// waitNewCommand polls dev's command log until cmd arrives after the first `before` commands.
func waitNewCommand(tb testing.TB, dev interface{ Commands() []string }, before int, cmd string) {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		cmds := dev.Commands()
		for _, c := range cmds[min(before, len(cmds)):] {
			if c == cmd {
				return
			}
		}
		time.Sleep(time.Millisecond)
	}
	tb.Fatalf("the device never received %q", cmd)
}

// An adb server that accepts but never answers cannot hold a call past its ctx.
func TestCancelHungServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // hold it open, say nothing
		}
	}()
	d := &Driver{addr: ln.Addr().String(), serial: "hung", conns: map[closer]struct{}{}}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	deadline, _ := ctx.Deadline()
	errc := goCall(func() error { return d.Tap(ctx, device.Point{}, 0) })
	if err := endsWithin(t, errc, deadline, "the deadline"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want context.DeadlineExceeded", err)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel2()
	deadline, _ = ctx2.Deadline()
	errc = goCall(func() error { _, err := Watch(ctx2, ln.Addr().String()); return err })
	if err := endsWithin(t, errc, deadline, "the deadline"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Watch on a hung server: %v", err)
	}
}

// A call whose ctx is cancelled just as the adb server refuses it returns the refusal, and
// the connection's close on cancel does not race the call's return (it once closed the
// call's result, nil by then: a data race, and a nil dereference when it lost).
func TestCancelAsServerRefuses(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cancels := make(chan context.CancelFunc, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if _, err := readMessage(c); err == nil { // host:transport:…
				(<-cancels)()
				_, _ = c.Write([]byte("FAIL0010device not found"))
			}
			_ = c.Close()
		}
	}()
	d := &Driver{addr: ln.Addr().String(), serial: "gone", conns: map[closer]struct{}{}}
	for range 20 {
		ctx, cancel := context.WithCancel(context.Background())
		cancels <- cancel
		if _, _, err := d.start(ctx, "shell:true"); err == nil {
			t.Fatal("start succeeded against a refusing server")
		}
	}
}
