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
	// relistGrace is how long a usbmuxd that answers again has to list a device it does not
	// list at once: a usbmuxd just started lists the phones one by one (Attached after Listen),
	// so a device missing from its first list is taken as unplugged only once it has listed
	// no device for this long. A Detached message still removes a device at once.
	relistGrace = 5 * time.Second
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
// its device list: those still there keep their drivers under their new ids; one it does not
// list keeps its driver (and its lease) while usbmuxd lists the others, and is removed once
// usbmuxd has listed nothing new for relistGrace. The devices it added stay on reg when it
// returns.
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
	// unlisted: usbmuxd answers again but has not listed the device yet (its id is 0 meanwhile,
	// as the old one may be another phone's now).
	unlisted bool
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
	lctx, cancel := context.WithCancel(ctx)
	defer cancel() // a device still unlisted when the connection breaks waits for the next one
	listed := make(chan struct{}, 1)
	unlisted, err := a.reconcile(lctx)
	if err != nil {
		return err
	}
	if unlisted > 0 {
		a.wg.Go(func() { a.settle(lctx, listed) })
	}
	for {
		msg, err := next()
		if err != nil {
			return err
		}
		switch msg.MessageType {
		case "Attached":
			a.add(ctx, msg.Properties.SerialNumber, msg.DeviceID)
			select {
			case listed <- struct{}{}:
			default:
			}
		case "Detached":
			a.removeID(msg.DeviceID)
		case "Paired":
			a.paired(msg.DeviceID)
		}
	}
}

// reconcile follows the devices usbmuxd lists to their new ids, and marks those it does not
// list: settle removes them unless usbmuxd lists them meanwhile. It says how many it marked.
func (a *attacher) reconcile(ctx context.Context) (int, error) {
	lctx, cancel := context.WithTimeout(ctx, factsTimeout)
	defer cancel()
	list, err := a.o.Mux.List(lctx)
	if err != nil {
		return 0, err
	}
	ids := map[string]int{}
	for _, e := range list {
		ids[e.Properties.SerialNumber] = e.DeviceID
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	unlisted := 0
	for udid, at := range a.live {
		id, ok := ids[udid]
		at.id, at.unlisted = id, !ok
		if at.drv != nil {
			at.drv.SetDeviceID(id)
		}
		if !ok {
			unlisted++
			a.log.Info("usbmuxd does not list the iOS device yet; waiting for it", "udid", udid, "grace", relistGrace)
		}
	}
	return unlisted, nil
}

// settle removes the devices still unlisted once usbmuxd has listed no device for relistGrace
// (a device it lists resets the wait); nothing if ctx (the Listen connection) ends first.
func (a *attacher) settle(ctx context.Context, listed <-chan struct{}) {
	t := time.NewTimer(relistGrace)
	defer t.Stop()
	for waiting := true; waiting; {
		select {
		case <-ctx.Done():
			return
		case <-listed:
			t.Reset(relistGrace)
		case <-t.C:
			waiting = false
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if ctx.Err() != nil {
		return
	}
	for udid, at := range a.live {
		if at.unlisted {
			a.log.Info("usbmuxd did not list the iOS device again; taking it as unplugged", "udid", udid, "waited", relistGrace)
			a.removeLocked(udid)
		}
	}
}

// add makes a driver for a device in the background, or follows a known one to its new id.
func (a *attacher) add(ctx context.Context, udid string, id int) {
	if udid == "" {
		return
	}
	a.mu.Lock()
	if at := a.live[udid]; at != nil {
		at.id, at.unlisted = id, false
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
		if at.id == id && id != 0 {
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
	a.removeLocked(udid)
}

// removeLocked is remove with a.mu held.
func (a *attacher) removeLocked(udid string) {
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
		if at.id == id && id != 0 && at.drv != nil {
			at.drv.sup.wake()
		}
	}
}
