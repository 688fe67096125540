package ios

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// RemovedReason is the reason Attach gives the registry for a device that left.
const RemovedReason = "device disconnected"

// How Attach waits for a usbmuxd that is gone (restarting) before listening again.
const (
	relistenMin = 100 * time.Millisecond
	relistenMax = 2 * time.Second
	// factsTimeout bounds reading a new device's facts from lockdown.
	factsTimeout = 10 * time.Second
)

// AttachOptions say how Attach makes drivers for the devices it finds.
type AttachOptions struct {
	Mux      Mux
	WDAPort  uint16
	Launcher Launcher
	Rate     float64
	Tags     []string
	Log      *slog.Logger
}

// Attach keeps reg in step with usbmuxd's devices until ctx ends: a device that is plugged in
// gets a Driver (shown unhealthy, with what to do, until it trusts this computer and its
// WebDriverAgent answers); one that is unplugged is removed with "device disconnected", which
// fails its call in flight. When usbmuxd restarts, Attach listens again and reconciles with
// its device list: devices that left meanwhile are removed, those still there keep their
// drivers under their new ids. The devices it added stay on reg when it returns.
func Attach(ctx context.Context, reg device.Registry, o AttachOptions) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	a := &attacher{reg: reg, o: o, log: o.Log.With("usbmuxd", o.Mux.String()), live: map[string]*attachment{}}
	defer a.wg.Wait()
	wait, down := relistenMin, false
	for ctx.Err() == nil {
		err := a.listen(ctx, func() {
			if down {
				a.log.Info("usbmuxd answers again")
			}
			wait, down = relistenMin, false
		})
		if ctx.Err() != nil {
			return
		}
		if !down {
			a.log.Warn("usbmuxd connection lost; listening again when it answers", "err", err)
			down = true
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait = min(2*wait, relistenMax)
	}
}

// attacher tracks the devices Attach has seen.
type attacher struct {
	reg device.Registry
	o   AttachOptions
	log *slog.Logger
	wg  sync.WaitGroup

	mu   sync.Mutex // guards live; orders AddDriver and RemoveDevice per device
	live map[string]*attachment
}

// attachment is one appearance of a device: its driver is being made, or is in reg.
type attachment struct {
	id     int
	cancel context.CancelFunc
	drv    *Driver // nil while being made
}

// listen follows one usbmuxd connection's events until it breaks or ctx ends; up is called
// once usbmuxd has taken the Listen.
func (a *attacher) listen(ctx context.Context, up func()) error {
	mc, c, err := a.o.Mux.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { _ = c.Close() })
	defer stop()
	next, err := mc.Listen()
	if err != nil {
		return err
	}
	up()
	if err := a.reconcile(ctx); err != nil {
		return err
	}
	for {
		msg, err := next()
		if err != nil {
			return err
		}
		switch msg.MessageType {
		case "Attached":
			a.add(ctx, msg.Properties.SerialNumber, msg.DeviceID)
		case "Detached":
			a.removeID(msg.DeviceID)
		case "Paired":
			a.paired(msg.DeviceID)
		}
	}
}

// reconcile removes the devices that left while usbmuxd was away; Listen's Attached
// messages bring the others back under their new ids.
func (a *attacher) reconcile(ctx context.Context) error {
	lctx, cancel := context.WithTimeout(ctx, factsTimeout)
	defer cancel()
	list, err := a.o.Mux.List(lctx)
	if err != nil {
		return err
	}
	present := map[string]bool{}
	for _, e := range list {
		present[e.Properties.SerialNumber] = true
	}
	a.mu.Lock()
	var gone []string
	for udid := range a.live {
		if !present[udid] {
			gone = append(gone, udid)
		}
	}
	a.mu.Unlock()
	for _, udid := range gone {
		a.remove(udid)
	}
	return nil
}

// add makes a driver for a device in the background, or follows a known one to its new id.
func (a *attacher) add(ctx context.Context, udid string, id int) {
	if udid == "" {
		return
	}
	a.mu.Lock()
	if at := a.live[udid]; at != nil {
		at.id = id
		if at.drv != nil {
			at.drv.SetDeviceID(id)
		}
		a.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	at := &attachment{id: id, cancel: cancel}
	a.live[udid] = at
	a.mu.Unlock()
	a.wg.Go(func() {
		start := time.Now()
		fctx, fcancel := context.WithTimeout(ctx, factsTimeout)
		facts, err := a.o.Mux.facts(fctx, id, udid)
		fcancel()
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.live[udid] != at {
			return // it left meanwhile
		}
		if err != nil {
			delete(a.live, udid)
			cancel()
			a.log.Warn("iOS device appeared but lockdown does not answer; unplug and plug it in again", "udid", udid, "err", err)
			return
		}
		at.drv = New(Options{UDID: udid, DeviceID: at.id, Mux: a.o.Mux, Facts: facts, WDAPort: a.o.WDAPort,
			Launcher: a.o.Launcher, Rate: a.o.Rate, Tags: a.o.Tags, Log: a.log})
		a.reg.AddDriver(at.drv)
		a.log.Info("iOS device attached", "udid", udid, "name", facts.Name, "model", facts.ProductType, "version", facts.Version,
			"trusted", facts.Trusted, "developer_mode", facts.DeveloperMode, "took", time.Since(start).Round(time.Millisecond))
	})
}

// removeID removes the device usbmuxd knew as id: a Detached message names only that.
func (a *attacher) removeID(id int) {
	a.mu.Lock()
	udid := ""
	for u, at := range a.live {
		if at.id == id {
			udid = u
		}
	}
	a.mu.Unlock()
	if udid != "" {
		a.remove(udid)
	}
}

// remove takes a device off reg (or stops its driver being made).
func (a *attacher) remove(udid string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	at := a.live[udid]
	if at == nil {
		return
	}
	delete(a.live, udid)
	at.cancel()
	if at.drv != nil {
		a.reg.RemoveDevice(udid, RemovedReason)
		a.log.Info("iOS device detached", "udid", udid)
	}
}

// paired wakes the driver of a device that now trusts this computer.
func (a *attacher) paired(id int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, at := range a.live {
		if at.id == id && at.drv != nil {
			at.drv.sup.wake()
		}
	}
}
