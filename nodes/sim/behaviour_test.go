package sim

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

func TestHangNextIgnoresCtxUntilClose(t *testing.T) {
	p := New("SIM-H")
	p.HangNext()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Tap(ctx, device.Point{X: 1, Y: 1}, 0) }()
	eventually(t, "the tap to start", func() bool { return p.InFlight() == 1 })
	cancel()
	select {
	case err := <-done:
		t.Fatalf("a hung tap returned after its ctx was cancelled: %v", err)
	case <-time.After(100 * time.Millisecond): // still hung, as it should be
	}
	must(t, p.Close())
	select {
	case err := <-done:
		if !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "SIM-H") {
			t.Fatalf("hung tap returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not release the hung tap")
	}
	if err := p.Health(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Health after Close = %v", err)
	}
	must(t, p.Close()) // idempotent
}

func TestPanicNext(t *testing.T) {
	p := New("s")
	p.PanicNext()
	func() {
		defer func() {
			v := recover()
			err, ok := v.(error)
			if !ok || !errors.Is(err, ErrInjected) {
				t.Fatalf("panic value = %v", v)
			}
		}()
		_, _ = p.Source(ctxT(t))
		t.Fatal("Source did not panic")
	}()
	if p.InFlight() != 0 {
		t.Fatalf("a panicked operation is still in flight: %d", p.InFlight())
	}
	if _, err := p.Source(ctxT(t)); err != nil {
		t.Fatalf("the fault was not one-shot: %v", err)
	}
}

func TestFailNext(t *testing.T) {
	p := New("SIM-F")
	boom := errors.New("boom")
	p.FailNext(boom)
	p.FailNext(nil)
	err := p.PressKey(ctxT(t), "HOME")
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "SIM-F") {
		t.Fatalf("first = %v", err)
	}
	if err := p.PressKey(ctxT(t), "HOME"); !errors.Is(err, ErrInjected) {
		t.Fatalf("second = %v", err)
	}
	must(t, p.PressKey(ctxT(t), "HOME"))
	// Health never takes a fault.
	p.FailNext(boom)
	must(t, p.Health(ctxT(t)))
	if err := p.Tap(ctxT(t), device.Point{}, 0); !errors.Is(err, boom) {
		t.Fatalf("the fault skipped past Health to %v", err)
	}
}

func TestSetDelayHonoursCtx(t *testing.T) {
	p := New("s")
	p.SetDelay(time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := p.Screenshot(ctx); done <- err }()
	eventually(t, "the screenshot to start", func() bool { return p.InFlight() == 1 })
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled screenshot returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a delayed operation ignored its cancelled ctx")
	}
	if _, err := p.ListPackages(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("an operation on a done ctx returned %v", err)
	}

	p.SetDelay(20 * time.Millisecond)
	start := time.Now()
	must(t, p.Health(ctxT(t)))
	if took := time.Since(start); took < 20*time.Millisecond {
		t.Fatalf("Health took %s with a 20ms delay", took)
	}
}

func TestOverlaps(t *testing.T) {
	p := New("s")
	ctx := ctxT(t)
	for range 3 {
		must(t, p.Tap(ctx, device.Point{X: 5, Y: 5}, 0))
	}
	if p.Overlaps() != 0 || p.Operations() != 3 {
		t.Fatalf("sequential: overlaps %d, operations %d", p.Overlaps(), p.Operations())
	}
	p.SetDelay(time.Hour)
	slowCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = p.Tap(slowCtx, device.Point{X: 5, Y: 5}, 0) })
	eventually(t, "the first tap to start", func() bool { return p.InFlight() == 1 })
	wg.Go(func() { _ = p.Swipe(slowCtx, device.Point{X: 5, Y: 5}, device.Point{X: 6, Y: 6}, 0, 0) })
	eventually(t, "the overlap to be seen", func() bool { return p.Overlaps() == 1 })
	cancel()
	wg.Wait()
	if p.Operations() != 5 || p.InFlight() != 0 {
		t.Fatalf("operations %d, in flight %d", p.Operations(), p.InFlight())
	}
}

func TestErrorsNameTheFix(t *testing.T) {
	p := New("SIM-E")
	ctx := ctxT(t)
	err := p.PressKey(ctx, "MENU")
	if !errors.Is(err, ErrUnknownKey) || !strings.Contains(err.Error(), "BACK, DEL, ENTER, HOME, POWER, VOLUME_DOWN, VOLUME_UP, WAKEUP") {
		t.Fatalf("unknown key: %v", err)
	}
	for _, pt := range []device.Point{{X: -1, Y: 0}, {X: 1080, Y: 5}, {X: 5, Y: 2400}} {
		err := p.Tap(ctx, pt, 0)
		if !errors.Is(err, ErrOutOfScreen) || !strings.Contains(err.Error(), "x must be 0..1079 and y 0..2399") {
			t.Fatalf("tap %v: %v", pt, err)
		}
	}
	if err := p.Swipe(ctx, device.Point{X: 5, Y: 5}, device.Point{X: 5, Y: 9999}, 0, 0); !errors.Is(err, ErrOutOfScreen) {
		t.Fatalf("swipe off screen: %v", err)
	}
	if err := p.Tap(ctx, device.Point{X: 5, Y: 5}, -time.Second); !errors.Is(err, ErrBadInput) {
		t.Fatalf("negative hold: %v", err)
	}
	var se *Error
	if !errors.As(err, &se) || se.Serial != "SIM-E" || se.Op != "press key" || se.Hint == "" {
		t.Fatalf("error fields = %+v", se)
	}
}

func TestInputLog(t *testing.T) {
	p := New("s")
	ctx := ctxT(t)
	must(t, p.Tap(ctx, device.Point{X: 540, Y: 1200}, 0))
	must(t, p.DoubleTap(ctx, device.Point{X: 10, Y: 20}))
	must(t, p.Swipe(ctx, device.Point{X: 540, Y: 1800}, device.Point{X: 540, Y: 600}, 300*time.Millisecond, 0))
	must(t, p.LaunchApp(ctx, "com.corral.notes"))
	must(t, p.InputText(ctx, "hello"))
	must(t, p.PressKey(ctx, "home"))
	must(t, p.TerminateApp(ctx, "com.corral.notes"))
	want := []string{
		"tap 540 1200 hold=0s",
		"doubletap 10 20",
		"swipe 540 1800 540 600 dur=300ms hold=0s",
		"launch com.corral.notes",
		`text "hello"`,
		"key HOME",
		"terminate com.corral.notes",
	}
	if got := p.InputLog(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := range 300 {
		must(t, p.Tap(ctx, device.Point{X: i, Y: 0}, 0))
	}
	got := p.InputLog()
	if len(got) != 256 || got[0] != "tap 44 0 hold=0s" || got[255] != "tap 299 0 hold=0s" {
		t.Fatalf("ring holds %d lines, %q .. %q", len(got), got[0], got[len(got)-1])
	}
}

// Hammer one phone from many goroutines; -race checks the locking, Overlaps sees it.
func TestConcurrentUse(t *testing.T) {
	p := New("s")
	ctx := ctxT(t)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				switch (g + i) % 5 {
				case 0:
					_ = p.Tap(ctx, device.Point{X: 135, Y: 860}, 0)
				case 1:
					_ = p.PressKey(ctx, "BACK")
				case 2:
					_, _ = p.Source(ctx)
				case 3:
					_ = p.Swipe(ctx, device.Point{X: 540, Y: 1800}, device.Point{X: 540, Y: 900}, 0, 0)
				case 4:
					_ = p.LaunchApp(ctx, apps[i%len(apps)].pkg)
				}
			}
		})
	}
	wg.Wait()
	if p.Operations() != 160 || p.InFlight() != 0 {
		t.Fatalf("operations %d, in flight %d", p.Operations(), p.InFlight())
	}
	dump(t, p)
}

// A farm may simulate thousands of phones: each must stay small.
func TestBytesPerPhone(t *testing.T) {
	const n = 1000
	ctx := ctxT(t)
	phones := make([]*Phone, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range phones {
		p := New(fmt.Sprintf("SIM-%05d", i))
		// A used phone: a screen with a back stack, a note and a few logged inputs.
		_ = p.LaunchApp(ctx, "com.corral.settings")
		_ = p.LaunchApp(ctx, "com.corral.notes")
		_ = p.InputText(ctx, "a short note")
		_ = p.Tap(ctx, device.Point{X: 500, Y: 500}, 0)
		phones[i] = p
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	t.Logf("%d bytes per phone", per)
	if per > 50<<10 {
		t.Fatalf("%d bytes per phone; keep it under 50 KiB", per)
	}
	runtime.KeepAlive(phones)
}
