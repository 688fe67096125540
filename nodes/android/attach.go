package android

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// Registry is where Attach puts devices: *nodes.Node is one.
type Registry interface {
	AddDriver(d device.Driver)
	RemoveDevice(serial, reason string)
}

// createTimeout bounds making a driver for a device that appeared (it reads four properties).
const createTimeout = 10 * time.Second

// RemovedReason is the reason Attach gives the registry for a device that left.
const RemovedReason = "device disconnected"

// Attach keeps reg in step with the adb server at addr (ServerAddr() when empty) until ctx
// ends: a device that becomes ready gets a Driver, added with AddDriver; one that leaves is
// removed with RemoveDevice(serial, "device disconnected"), which also closes its driver and
// fails its call in flight. Devices in other states are logged with a hint. Attach returns an
// error at once if the adb server cannot be reached, and nil when ctx ends; the devices it
// added stay on reg (a node removes its devices when it stops).
func Attach(ctx context.Context, reg Registry, addr string, log *slog.Logger) error {
	if addr == "" {
		addr = ServerAddr()
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("adb_server", addr)
	events, err := Watch(ctx, addr)
	if err != nil {
		return err
	}
	a := &attacher{reg: reg, addr: addr, log: log, live: map[string]*attachment{}}
	defer a.wg.Wait()
	for e := range events {
		switch e.Kind {
		case Added:
			a.add(ctx, e.Serial)
		case Removed:
			a.remove(e.Serial, e.State)
		case Unusable:
			level := slog.LevelWarn
			if transient(e.State) {
				level = slog.LevelInfo // every device passes through these on its way in
			}
			log.Log(ctx, level, "android device not usable", "serial", e.Serial, "state", e.State, "hint", StateHint(e.State))
		}
	}
	return nil
}

// attacher tracks the devices Attach has seen.
type attacher struct {
	reg  Registry
	addr string
	log  *slog.Logger
	wg   sync.WaitGroup

	mu   sync.Mutex // guards live, and orders AddDriver and RemoveDevice per serial
	live map[string]*attachment
}

// attachment is one appearance of a device: its driver is being made, or is in reg.
type attachment struct {
	cancel context.CancelFunc
	added  bool
}

// add makes a driver for serial in the background and hands it to reg, unless the device
// leaves first.
func (a *attacher) add(ctx context.Context, serial string) {
	ctx, cancel := context.WithTimeout(ctx, createTimeout)
	at := &attachment{cancel: cancel}
	a.mu.Lock()
	if old := a.live[serial]; old != nil { // cannot happen: Removed comes first; be safe
		old.cancel()
	}
	a.live[serial] = at
	a.mu.Unlock()
	a.wg.Go(func() {
		defer cancel()
		start := time.Now()
		d, err := New(ctx, a.addr, serial)
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.live[serial] != at { // it left (or came back) meanwhile
			if d != nil {
				_ = d.Close()
			}
			return
		}
		if err != nil {
			delete(a.live, serial)
			a.log.Warn("android device appeared but does not answer", "serial", serial, "err", err)
			return
		}
		at.added = true
		a.reg.AddDriver(d)
		info := d.Info()
		a.log.Info("android device attached", "serial", serial, "model", info.Model, "release", info.Release,
			"took", time.Since(start).Round(time.Millisecond))
	})
}

// remove takes serial off reg (or stops its driver being made).
func (a *attacher) remove(serial, state string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	at := a.live[serial]
	if at == nil {
		return
	}
	delete(a.live, serial)
	at.cancel()
	if at.added {
		a.reg.RemoveDevice(serial, RemovedReason)
		a.log.Info("android device detached", "serial", serial, "state", state)
	}
}

// transient says whether a device in state passes through it on its way to "device".
func transient(state string) bool {
	return state == "offline" || state == "connecting" || state == "authorizing"
}
