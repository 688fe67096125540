package ios

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/nodes/device"
)

// registry records what Attach gives a node, and the health its drivers report.
type registry struct {
	mu      sync.Mutex
	drivers map[string]*Driver
	removed map[string]string // serial → reason
	health  map[string]error
	reports map[string]int
}

func newRegistry() *registry {
	return &registry{drivers: map[string]*Driver{}, removed: map[string]string{}, health: map[string]error{}, reports: map[string]int{}}
}

func (r *registry) AddDriver(d device.Driver) {
	drv := d.(*Driver)
	serial := d.Info().Serial
	r.mu.Lock()
	r.drivers[serial] = drv
	delete(r.removed, serial)
	r.mu.Unlock()
	drv.ReportHealth(func(err error) {
		r.mu.Lock()
		r.health[serial] = err
		r.reports[serial]++
		r.mu.Unlock()
	})
}

func (r *registry) RemoveDevice(serial, reason string) {
	r.mu.Lock()
	d := r.drivers[serial]
	delete(r.drivers, serial)
	r.removed[serial] = reason
	r.mu.Unlock()
	if d != nil {
		_ = d.Close()
	}
}

func (r *registry) driver(serial string) *Driver {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.drivers[serial]
}

// healthOf is the last health serial reported, and whether it reported at all.
func (r *registry) healthOf(serial string) (error, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	err, ok := r.health[serial]
	return err, ok && r.drivers[serial] != nil
}

func (r *registry) removedReason(serial string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	reason, ok := r.removed[serial]
	return reason, ok
}

func (r *registry) closeAll() {
	r.mu.Lock()
	ds := make([]*Driver, 0, len(r.drivers))
	for _, d := range r.drivers {
		ds = append(ds, d)
	}
	r.mu.Unlock()
	for _, d := range ds {
		_ = d.Close()
	}
}

// simFarm starts n simulated iPhones and attaches them to a registry, with the launcher that
// restarts their WebDriverAgents; everything stops with the test.
func simFarm(t *testing.T, n int) (*Sims, *registry) {
	t.Helper()
	return simFarmLaunching(t, n, true)
}

// simFarmLaunching is simFarm, without a launcher unless launch (the farm runs WDA itself:
// a WDA that misbehaves stays as it is).
func simFarmLaunching(t *testing.T, n int, launch bool) (*Sims, *registry) {
	t.Helper()
	return simFarmVia(t, n, launch, func(addr string) string { return addr })
}

// simFarmVia is simFarmLaunching whose drivers reach usbmuxd at via(its address): a link the
// test shapes.
func simFarmVia(t *testing.T, n int, launch bool, via func(addr string) string) (*Sims, *registry) {
	t.Helper()
	log := slog.New(&logtest.Recorder{})
	sims, err := StartSims(n, "127.0.0.1:0", log)
	if err != nil {
		t.Fatal(err)
	}
	mux := via(sims.Addr())
	reg := newRegistry()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		o := AttachOptions{Mux: ParseMux(mux), Tags: []string{"sim"}, Log: log}
		if launch {
			o.Launcher = sims.Launcher()
		}
		Attach(ctx, reg, o)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		reg.closeAll()
		_ = sims.Close()
	})
	return sims, reg
}

// eventually waits up to d for cond.
func eventually(t *testing.T, d time.Duration, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", d, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ready waits for serial's driver to report itself healthy and returns it.
func ready(t *testing.T, reg *registry, serial string) *Driver {
	t.Helper()
	eventually(t, 10*time.Second, func() bool {
		err, ok := reg.healthOf(serial)
		return ok && err == nil
	}, serial+" healthy")
	return reg.driver(serial)
}
