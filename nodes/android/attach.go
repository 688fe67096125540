package android

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// createTimeout bounds making a driver for a device that appeared (it reads five properties
// and the input devices).
const createTimeout = 10 * time.Second

// RemovedReason is the reason Attach gives the registry for a device that left the adb
// server's list. One still listed, in another state, gets that state and what to do after it
// (see removedReason); the devices of an adb server that does not answer get the
// *ServerDownError's text.
const RemovedReason = "device disconnected"

// settleTime is how long a device may stay in a state it passes through on its way in
// (offline, connecting, authorizing) before Attach reports it as not usable. The adb server
// lists a device it connects to as offline for a few milliseconds before it is ready: that is
// logged at DEBUG only.
const settleTime = 5 * time.Second

// Attach keeps reg in step with the adb server at addr (ServerAddr() when empty) until ctx
// ends: a device that becomes ready gets a Driver, added with AddDriver; one that leaves is
// removed with RemoveDevice(serial, reason), which also closes its driver and fails its call in
// flight; the reason is "device disconnected", with the adb state and what to do if the server
// still lists it, kept up to date while the device is away (another state, no longer listed).
// Devices in other states are logged with a hint: at once at WARN for a state
// that needs someone (unauthorized, no permissions, ...), at DEBUG for one every device passes
// through, then at WARN if the device is still in it after settleTime. An adb server that does
// not answer, at first or any more, is logged once at WARN, its devices removed with the
// reason that it does not answer and what to do, and dialled again until it answers (logged
// once at INFO), when those it no longer lists (or lists in another state) get the reason that
// is true then. Attach returns an error at once only if addr is not host:port, and nil when
// ctx ends; the devices it added stay on reg (a node removes its devices when it stops). Each
// driver is made with the driver Options among opts (WithTags: a private adb server's simulated
// devices are tagged "sim"); QuietUntilUp waits quietly for a server that has never answered.
func Attach(ctx context.Context, reg device.Registry, addr string, log *slog.Logger, opts ...AttachOption) error {
	if addr == "" {
		addr = ServerAddr()
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("adb_server", addr)
	events, err := Watch(ctx, addr)
	if ctx.Err() != nil {
		return nil
	}
	if err != nil {
		return err
	}
	var cfg attachConfig
	for _, o := range opts {
		o.applyAttach(&cfg)
	}
	if cfg.names != nil {
		reg = namedRegistry{Registry: reg, names: cfg.names}
	}
	a := &attacher{reg: reg, addr: addr, log: log, names: cfg.names, quiet: cfg.quiet, own: cfg.own, opts: append([]Option{WithLogger(log)}, cfg.driver...),
		live: map[string]*attachment{}, settling: map[string]settling{},
		states: func(ctx context.Context) (map[string]string, error) {
			msg, err := hostQuery(ctx, addr, "host:devices")
			return parseDeviceList(msg), err
		}}
	defer a.wg.Wait()
	check := time.NewTicker(settleTime / 5)
	defer check.Stop()
	for {
		select {
		case e, ok := <-events:
			if !ok {
				return nil
			}
			a.event(ctx, e, time.Now())
		case now := <-check.C:
			a.checkSettling(ctx, now)
		}
	}
}

// event acts on one change of the adb server's device list, seen at now.
func (a *attacher) event(ctx context.Context, e Event, now time.Time) {
	if e.Err != nil && a.own != nil { // corral's own server: its devices' reason says so
		if e.Kind == ServerDown || a.ownDown == nil {
			a.ownDown = a.own.downError(e.Err)
		}
		e.Err = a.ownDown
	}
	switch e.Kind {
	case Added:
		delete(a.settling, e.Serial)
		a.add(ctx, e.Serial)
	case Removed:
		delete(a.settling, e.Serial)
		a.remove(e)
	case Gone:
		delete(a.settling, e.Serial)
		a.unlisted(e)
	case ServerDown:
		clear(a.settling) // gone with the server
		if a.quiet && e.First {
			a.log.Debug("adb server does not answer yet; waiting for it", "err", e.Err)
			return
		}
		a.log.Warn("adb server does not answer; its devices are offline until it does", "err", e.Err)
	case ServerUp:
		if a.quiet && e.First {
			a.log.Info("adb server now answers; attaching its devices")
			return
		}
		a.log.Info("adb server answers again")
		a.recheckGone(ctx)
	case Unusable:
		a.restate(e)
		if !transient(e.State) {
			delete(a.settling, e.Serial)
			a.log.Warn("android device not usable", append(a.serialAttrs(e.Serial), "state", e.State, "hint", StateHint(e.State))...)
			return
		}
		a.log.Debug("android device not ready yet", append(a.serialAttrs(e.Serial), "state", e.State)...)
		if s, ok := a.settling[e.Serial]; ok {
			now = s.since // still not ready: from offline to connecting, say
		}
		a.settling[e.Serial] = settling{state: e.State, since: now}
	}
}

// checkSettling reports, at WARN, the devices still in a transient state settleTime after they
// entered it, as the adb server lists them now (a device that left the list meanwhile is no
// longer news). Each is reported once.
func (a *attacher) checkSettling(ctx context.Context, now time.Time) {
	var due []string
	for serial, s := range a.settling {
		if now.Sub(s.since) >= settleTime {
			due = append(due, serial)
		}
	}
	if len(due) == 0 {
		return
	}
	qctx, cancel := context.WithTimeout(ctx, time.Second)
	states, err := a.states(qctx)
	cancel()
	if err != nil {
		return // the adb server is gone (Watch reports its devices removed) or slow: next time
	}
	for _, serial := range due {
		s := a.settling[serial]
		delete(a.settling, serial)
		if state := states[serial]; transient(state) {
			a.log.Warn("android device not usable", append(a.serialAttrs(serial), "state", state, "for", now.Sub(s.since).Round(time.Second),
				"hint", StateHint(state))...)
		}
	}
}

// attacher tracks the devices Attach has seen.
type attacher struct {
	reg  device.Registry
	addr string
	log  *slog.Logger
	opts []Option // each driver's
	wg   sync.WaitGroup
	// names: the names devices show, by adb serial (WithSerialNames), which logs say.
	names map[string]string

	// quiet: a server that has never answered is no news (QuietUntilUp).
	quiet bool
	// own is corral's own adb server for simulated devices (WithPrivateServer), and ownDown
	// the reason its devices get while it does not answer (Attach's goroutine only).
	own     *PrivateServer
	ownDown error

	mu   sync.Mutex // guards live, gone and offline, and orders AddDriver and RemoveDevice per serial
	live map[string]*attachment
	// gone holds the devices removed because the adb server did not answer: their reason says
	// so until the server answers again and they are looked at afresh (recheckGone).
	gone map[string]bool
	// offline holds the other devices removed and not attached since: the adb state their
	// reason names ("" for not listed), brought up to date as it changes (restate, unlisted).
	offline map[string]string

	// settling holds the devices listed in a transient state, not ready yet (Attach's
	// goroutine only); states lists the adb server's devices now.
	settling map[string]settling
	states   func(ctx context.Context) (map[string]string, error)
}

// settling is a device on its way in: its state and since when it has not been ready.
type settling struct {
	state string
	since time.Time
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
	delete(a.gone, serial) // back: its reason is no longer shown
	delete(a.offline, serial)
	a.mu.Unlock()
	a.wg.Go(func() {
		defer cancel()
		start := time.Now()
		d, err := New(ctx, a.addr, serial, a.opts...)
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
			a.log.Warn("android device appeared but does not answer", append(a.serialAttrs(serial), "err", err)...)
			return
		}
		at.added = true
		a.reg.AddDriver(d)
		info := d.Info()
		a.log.Info("android device attached", append(a.serialAttrs(serial), "model", info.Model, "release", info.Release,
			"touch", info.Extra["touch"], "took", time.Since(start).Round(time.Millisecond))...)
	})
}

// remove takes the device of e, a Removed event, off reg (or stops its driver being made).
func (a *attacher) remove(e Event) {
	a.mu.Lock()
	defer a.mu.Unlock()
	at := a.live[e.Serial]
	if at == nil {
		return
	}
	delete(a.live, e.Serial)
	at.cancel()
	if !at.added {
		return
	}
	a.reg.RemoveDevice(e.Serial, removedReason(e))
	a.noteReason(e)
	attrs := a.serialAttrs(e.Serial)
	switch {
	case e.Err != nil:
		attrs = append(attrs, "cause", "adb server does not answer") // logged once, in full, at WARN
	case e.State != "":
		attrs = append(attrs, "state", e.State, "hint", StateHint(e.State))
	}
	a.log.Info("android device detached", attrs...)
}

// removedReason is what the registry shows for the device of e, a Removed event: the adb
// server down, the state it is listed in and what to do, or no longer listed.
func removedReason(e Event) string {
	switch {
	case e.Err != nil:
		return e.Err.Error()
	case e.State != "":
		return RemovedReason + " (adb lists it " + e.State + "): " + StateHint(e.State)
	}
	return RemovedReason
}

// transient says whether a device in state passes through it on its way to "device".
func transient(state string) bool {
	return state == "offline" || state == "connecting" || state == "authorizing"
}

// serialAttrs is the serial attributes of a log line about the device with this adb serial: the
// name it shows, if any, with the adb serial as adb_serial (for adb -s).
func (a *attacher) serialAttrs(adbSerial string) []any {
	if name, ok := a.names[adbSerial]; ok {
		return []any{"serial", name, "adb_serial", adbSerial}
	}
	return []any{"serial", adbSerial}
}
