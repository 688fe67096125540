package android

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/android/adbsim"
	"github.com/corral-farm/corral/nodes/device"
)

// within is how soon Watch must report a change.
const within = time.Second

// nextEvent waits for the next event about serial, skipping other devices' events.
func nextEvent(t *testing.T, events <-chan Event, serial string, wait time.Duration) (Event, time.Duration) {
	t.Helper()
	start := time.Now()
	timeout := time.After(wait)
	for {
		select {
		case e, ok := <-events:
			if !ok {
				t.Fatal("the event channel closed")
			}
			if e.Serial == serial {
				return e, time.Since(start)
			}
		case <-timeout:
			t.Fatalf("no event about %s within %v", serial, wait)
		}
	}
}

// Watch reports a device that connects, disconnects, dies and comes back, each within a second.
func TestWatchAddRemove(t *testing.T) {
	addr := sharedServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, err := Watch(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	dev := startDevice(t)
	t.Cleanup(func() { shared.srv.disconnect(dev) })
	// The clock starts when the change has happened: adb connect and disconnect take their
	// time (starting the adb CLI on a loaded machine), and Watch cannot see a change before.
	expect := func(step string, kind EventKind, change func()) {
		t.Helper()
		change()
		start := time.Now()
		for {
			e, _ := nextEvent(t, events, dev.Serial(), 5*time.Second)
			// "offline" on the way out, "connecting" on the way in; the offline entry that
			// connectOnly disconnects leaves the list.
			if e.Kind == Unusable || e.Kind == Gone {
				continue
			}
			if e.Kind != kind {
				t.Fatalf("%s: event %+v, want %v", step, e, kind)
			}
			break
		}
		if took := time.Since(start); took > within {
			t.Errorf("%s: reported %v after the change", step, took)
		} else {
			t.Logf("%s: %v reported in %v", step, kind, took.Round(time.Millisecond))
		}
	}
	connect := func() { shared.srv.connectOnly(t, dev) }
	expect("adb connect", Added, connect)
	expect("adb disconnect", Removed, func() { shared.srv.disconnect(dev) })
	expect("connect again", Added, connect)
	expect("device killed", Removed, dev.Kill)
	if err := dev.Restart(); err != nil {
		t.Fatal(err)
	}
	expect("device back", Added, connect)

	cancel()
	deadline := time.After(time.Second)
	for {
		select {
		case _, ok := <-events:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the channel did not close after ctx ended")
		}
	}
}

// Watch follows an adb server that restarts: its devices are removed, then added again once
// the new server has them.
func TestWatchServerRestart(t *testing.T) {
	srv := privateServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, err := Watch(ctx, srv.addr())
	if err != nil {
		t.Fatal(err)
	}
	dev := startDevice(t)
	srv.connect(t, dev)
	for {
		e, _ := nextEvent(t, events, dev.Serial(), 5*time.Second)
		if e.Kind == Added {
			break
		}
		if e.Kind == Removed {
			t.Fatalf("event %+v, want added", e)
		}
	}
	srv.stop()
	if e, _ := nextEvent(t, events, "", 5*time.Second); e.Kind != ServerDown || !isServerDown(e.Err, srv.addr()) || e.First {
		t.Fatalf("event %+v, want server down naming %s, not First: it answered before", e, srv.addr())
	}
	if e, took := nextEvent(t, events, dev.Serial(), 5*time.Second); e.Kind != Removed || !isServerDown(e.Err, srv.addr()) || took > within {
		t.Fatalf("event %+v after %v, want removed within %v, as the server is down", e, took, within)
	}
	if err := srv.start(); err != nil {
		t.Fatal(err)
	}
	if e, _ := nextEvent(t, events, "", 5*time.Second); e.Kind != ServerUp || e.First {
		t.Fatalf("event %+v, want server up, not First: it answers again", e)
	}
	srv.connect(t, dev)
	for {
		e, _ := nextEvent(t, events, dev.Serial(), 5*time.Second)
		if e.Kind == Added {
			break
		}
		if e.Kind == Removed {
			t.Fatalf("event %+v, want added", e)
		}
	}
}

// isServerDown says whether err is the adb server at addr not answering, with what to do.
func isServerDown(err error, addr string) bool {
	var down *ServerDownError
	return errors.As(err, &down) && errors.Is(err, ErrServer) && down.Addr == addr &&
		strings.Contains(err.Error(), "adb server at "+addr+" does not answer") && strings.Contains(err.Error(), "ANDROID_ADB_SERVER_PORT")
}

// Without an adb server Watch does not fail: it reports the server down, once, and waits for it.
func TestWatchWithoutServer(t *testing.T) {
	port, err := freeLoopbackPort()
	if err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + itoa(port)
	ctx, cancel := context.WithTimeout(context.Background(), redialMin+2*redialMin+4*redialMin) // three redials
	defer cancel()
	events, err := Watch(ctx, addr)
	if err != nil {
		t.Fatalf("Watch without a server: %v, want it to wait for one", err)
	}
	var got []Event
	for e := range events {
		got = append(got, e)
	}
	if len(got) != 1 || got[0].Kind != ServerDown || !isServerDown(got[0].Err, addr) || !got[0].First {
		t.Errorf("events %+v, want one server down naming %s and what to do, First: it never answered", got, addr)
	}
	if _, err := Watch(context.Background(), "adb-host-without-port"); !errors.Is(err, ErrBadArgument) {
		t.Errorf("Watch of an address without a port: %v, want ErrBadArgument", err)
	}
}

// registry records what Attach does to a node.
type registry struct {
	mu      sync.Mutex
	drivers map[string]device.Driver
	removed map[string]string
	changed chan struct{}
}

func newRegistry() *registry {
	return &registry{drivers: map[string]device.Driver{}, removed: map[string]string{}, changed: make(chan struct{}, 100)}
}

func (r *registry) AddDriver(d device.Driver) {
	r.mu.Lock()
	r.drivers[d.Info().Serial] = d
	delete(r.removed, d.Info().Serial)
	r.mu.Unlock()
	r.changed <- struct{}{}
}

func (r *registry) RemoveDevice(serial, reason string) {
	r.mu.Lock()
	d := r.drivers[serial]
	delete(r.drivers, serial)
	r.removed[serial] = reason
	r.mu.Unlock()
	if c, ok := d.(device.Closer); ok {
		_ = c.Close()
	}
	r.changed <- struct{}{}
}

// waitFor polls r until cond holds, for at most wait.
func (r *registry) waitFor(t *testing.T, wait time.Duration, what string, cond func(*registry) bool) time.Duration {
	t.Helper()
	start := time.Now()
	timeout := time.After(wait)
	for {
		r.mu.Lock()
		ok := cond(r)
		r.mu.Unlock()
		if ok {
			return time.Since(start)
		}
		select {
		case <-r.changed:
		case <-timeout:
			t.Fatalf("%s: not within %v", what, wait)
		}
	}
}

// Attach gives a node a driver for a device that connects, and removes it, failing its call
// in flight with "device disconnected", when the device dies.
func TestAttach(t *testing.T) {
	addr := sharedServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	reg := newRegistry()
	done := make(chan error, 1)
	go func() { done <- Attach(ctx, reg, addr, nil) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	dev := startDevice(t, adbsim.WithInputDevicesDenied()) // taps are `input` commands, which SetDelay holds
	t.Cleanup(func() { shared.srv.disconnect(dev) })
	shared.srv.connect(t, dev)
	serial := dev.Serial()
	took := reg.waitFor(t, 5*time.Second, "attached", func(r *registry) bool { return r.drivers[serial] != nil })
	if took > within {
		t.Errorf("attached %v after the device was ready", took)
	}
	reg.mu.Lock()
	d := reg.drivers[serial]
	reg.mu.Unlock()
	if info := d.Info(); info.Platform != device.PlatformAndroid || info.Model == "" {
		t.Errorf("Info = %+v", info)
	}

	dev.SetDelay(time.Minute)
	errc := make(chan error, 1)
	before := len(dev.Commands())
	go func() { errc <- d.Tap(context.Background(), device.Point{X: 5, Y: 5}, 0) }()
	waitNewCommand(t, dev, before, "input tap 5 5")
	dev.Kill() // the adb server lists it offline, and the reason says what to do about that
	reg.waitFor(t, within, "removed", func(r *registry) bool { return r.removed[serial] != "" })
	reg.mu.Lock()
	reason := reg.removed[serial]
	reg.mu.Unlock()
	if want := RemovedReason + " (adb lists it offline): " + StateHint("offline"); reason != want {
		t.Errorf("removed as %q, want %q", reason, want)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, ErrDisconnected) {
			t.Errorf("call in flight: %v, want device disconnected", err)
		}
	case <-time.After(within):
		t.Error("the call in flight did not fail within a second")
	}

	dev.SetDelay(0)
	if err := dev.Restart(); err != nil {
		t.Fatal(err)
	}
	shared.srv.connect(t, dev)
	reg.waitFor(t, 5*time.Second, "attached again", func(r *registry) bool { return r.drivers[serial] != nil })
}

func TestAttachBadAddress(t *testing.T) {
	if err := Attach(context.Background(), newRegistry(), "adb-host-without-port", nil); !errors.Is(err, ErrBadArgument) {
		t.Errorf("Attach of an address without a port: %v, want ErrBadArgument", err)
	}
}
