package android

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"
	"sync"
	"time"
)

// EventKind says what happened to a device of the adb server.
type EventKind int

// Event kinds.
const (
	// Added: the device is now in state "device", ready for commands.
	Added EventKind = iota + 1
	// Removed: the device was ready and is no longer: gone, offline, or the adb server is.
	Removed
	// Unusable: the adb server lists the device in a state other than "device" (unauthorized,
	// offline, no permissions, recovery, ...). State says which; Hint what to do.
	Unusable
	// ServerDown: the adb server does not answer (at first, or any more). Err says why, with
	// what to do; the devices it had are Removed, with the same Err, right after.
	ServerDown
	// ServerUp: the adb server answers again after a ServerDown; its devices follow as Added.
	ServerUp
	// Gone: a device listed in a state other than "device" (reported Unusable, or Removed on
	// its way there) is no longer listed: `adb disconnect`, `adb reconnect offline`, unplugged.
	// Err is set as on Removed, when the adb server went down.
	Gone
)

func (k EventKind) String() string {
	switch k {
	case Added:
		return "added"
	case Removed:
		return "removed"
	case Unusable:
		return "unusable"
	case ServerDown:
		return "server down"
	case ServerUp:
		return "server up"
	case Gone:
		return "gone"
	}
	return "unknown"
}

// Event is a change of the adb server's device list.
type Event struct {
	Kind   EventKind
	Serial string
	// State is the adb state now ("device", "offline", "unauthorized", ...), empty when the
	// device is no longer listed.
	State string
	// Err is why the adb server cannot be reached (a *ServerDownError): set on ServerDown and
	// on the Removed events it causes, nil otherwise.
	Err error
	// First is set on a ServerDown while the adb server has not answered Watch yet, and on the
	// ServerUp when it first does: a server that was never there is not one that went away.
	First bool
}

// ServerDownError is the adb server not answering: none of its devices can be reached, so it,
// not a device, is what to look at.
type ServerDownError struct {
	Addr string
	Err  error
}

func (e *ServerDownError) Error() string {
	// What to do comes before the cause, which can be long: lists cut reasons short.
	return fmt.Sprintf("adb server at %s does not answer: is it running? Start it (adb start-server), or if it listens elsewhere set --adb or ANDROID_ADB_SERVER_PORT (%v)",
		e.Addr, netCause(e.Err))
}

func (e *ServerDownError) Unwrap() []error { return []error{ErrServer, e.Err} }

// netCause is the network error inside err, if any: dial's own wording names the server again.
func netCause(err error) error {
	if op, ok := errors.AsType[*net.OpError](err); ok {
		return op
	}
	return err
}

// How Watch dials an adb server that is gone (or not there yet): soon at first, then less
// often, so that a server that never comes costs little.
const (
	redialMin = 250 * time.Millisecond
	redialMax = 2 * time.Second
)

// handshakeTimeout bounds connecting to the adb server and starting the tracker: a server that
// takes the connection but does not answer is down too.
const handshakeTimeout = 2 * time.Second

// pollEvery is how often Watch also asks for the device list (host:devices): adb servers of
// platform-tools 29 and older do not push on host:track-devices when a device goes offline.
const pollEvery = 250 * time.Millisecond

// Watch follows the device list of the adb server at addr (ServerAddr() when empty): a device
// that becomes ready is Added, one that stops being ready is Removed, one listed in another
// state is reported Unusable once per state, and Gone when it leaves the list from there. The list comes from host:track-devices, which the
// server pushes on every change, checked every 250 ms with host:devices for the changes old
// servers do not push. An adb server that does not answer, at first or any more, is reported
// ServerDown, and its devices Removed; Watch dials it again, every 250 ms at first and every
// 2 s after a while, until ctx ends, and reports ServerUp when it answers, then the devices it
// lists as Added; both are First while the server had not answered since Watch started. Watch
// fails only if addr is not host:port or ctx ends before the adb server has answered or failed
// to. The channel closes when ctx ends.
func Watch(ctx context.Context, addr string) (<-chan Event, error) {
	if addr == "" {
		addr = ServerAddr()
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("%w: adb server address %q: %w; give host:port, as 127.0.0.1:5037", ErrBadArgument, addr, err)
	}
	c, err := openTracker(ctx, addr)
	if ctx.Err() != nil {
		closeIfAny(c)
		return nil, ctx.Err()
	}
	ch := make(chan Event, 16)
	w := &watcher{ctx: ctx, ch: ch, states: map[string]string{}, down: err != nil, answered: err == nil}
	var wg sync.WaitGroup
	wg.Go(func() { w.poll(addr) })
	go func() {
		defer close(ch)
		defer wg.Wait()
		for {
			if err != nil {
				if c = w.redial(addr, err); c == nil {
					return
				}
			}
			w.follow(c)
			if ctx.Err() != nil {
				return
			}
			// Dialled again at once: a server that restarted answers, and its devices are those
			// it lists; one that died is down, and its devices with it.
			c, err = openTracker(ctx, addr)
			if ctx.Err() != nil {
				closeIfAny(c)
				return
			}
			if err == nil && !w.fromTracker(map[string]string{}) {
				_ = c.Close()
				return
			}
		}
	}()
	return ch, nil
}

// openTracker connects to the adb server and starts host:track-devices, within
// handshakeTimeout.
func openTracker(ctx context.Context, addr string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, handshakeTimeout)
	defer cancel()
	c, err := dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { _ = c.Close() })
	err = request(c, "host:track-devices")
	if !stop() || err != nil {
		_ = c.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return c, nil
}

// closeIfAny closes c unless it is nil.
func closeIfAny(c net.Conn) {
	if c != nil {
		_ = c.Close()
	}
}

// redial reports the adb server at addr down (err says why) and its devices removed, then
// dials it, less and less often, until it answers (reported ServerUp) or ctx ends (nil).
func (w *watcher) redial(addr string, err error) net.Conn {
	if !w.serverDown(&ServerDownError{Addr: addr, Err: err}) {
		return nil
	}
	for wait := redialMin; ; wait = min(2*wait, redialMax) {
		if sleep(w.ctx, wait) != nil {
			return nil
		}
		c, err := openTracker(w.ctx, addr)
		if err != nil {
			continue
		}
		if !w.serverUp() {
			_ = c.Close()
			return nil
		}
		return c
	}
}

// watcher turns device lists into events.
type watcher struct {
	ctx context.Context
	ch  chan<- Event

	mu     sync.Mutex        // serialises updates, so that events leave in order
	states map[string]string // serial → adb state, as last listed
	lists  uint64            // track-devices lists seen: a poll answered meanwhile may be older
	down   bool              // the adb server does not answer: polls wait for the tracker
	// answered: the adb server has answered since Watch started (Event.First).
	answered bool
}

// follow reads device lists from c until it breaks or ctx ends, then closes c.
func (w *watcher) follow(c net.Conn) {
	stop := context.AfterFunc(w.ctx, func() { _ = c.Close() })
	defer stop()
	defer c.Close()
	for {
		msg, err := readMessage(c)
		if err != nil {
			return
		}
		if !w.fromTracker(parseDeviceList(string(msg))) {
			return
		}
	}
}

// poll asks for the device list every pollEvery until ctx ends.
func (w *watcher) poll(addr string) {
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-t.C:
		}
		w.mu.Lock()
		lists, down := w.lists, w.down
		w.mu.Unlock()
		if down {
			continue // the tracker's first list, once the server answers, is the news
		}
		ctx, cancel := context.WithTimeout(w.ctx, pollEvery)
		msg, err := hostQuery(ctx, addr, "host:devices")
		cancel()
		if err != nil {
			continue // the tracker notices a server that is gone
		}
		w.mu.Lock()
		if w.lists == lists { // no newer list came from the tracker meanwhile, nor did it go down
			w.update(parseDeviceList(msg), nil)
		}
		w.mu.Unlock()
	}
}

// fromTracker applies a list from host:track-devices; false if ctx ended.
func (w *watcher) fromTracker(now map[string]string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lists++
	return w.update(now, nil)
}

// serverDown reports the adb server down, then its devices removed, both with err; false if
// ctx ended.
func (w *watcher) serverDown(err *ServerDownError) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lists++
	w.down = true
	return w.send(Event{Kind: ServerDown, Err: err, First: !w.answered}) && w.update(map[string]string{}, err)
}

// serverUp reports the adb server answering again; false if ctx ended.
func (w *watcher) serverUp() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.down = false
	first := !w.answered
	w.answered = true
	return w.send(Event{Kind: ServerUp, First: first})
}

// update sends the events that lead from the last list to now; false if ctx ended. gone, if
// not nil, is why the devices that are no longer ready left: their adb server is down. The
// caller holds w.mu.
func (w *watcher) update(now map[string]string, gone error) bool {
	var events []Event
	for _, serial := range slices.Sorted(maps.Keys(w.states)) {
		state, listed := now[serial]
		switch before := w.states[serial]; {
		case before == "device" && state != "device":
			events = append(events, Event{Kind: Removed, Serial: serial, State: state, Err: gone})
		case before != "device" && !listed:
			events = append(events, Event{Kind: Gone, Serial: serial, Err: gone})
		}
	}
	for _, serial := range slices.Sorted(maps.Keys(now)) {
		state, before := now[serial], w.states[serial]
		switch {
		case state == before:
		case state == "device":
			events = append(events, Event{Kind: Added, Serial: serial, State: state})
		default:
			events = append(events, Event{Kind: Unusable, Serial: serial, State: state})
		}
	}
	w.states = now
	for _, e := range events {
		if !w.send(e) {
			return false
		}
	}
	return true
}

// send hands e on; false if ctx ended first.
func (w *watcher) send(e Event) bool {
	select {
	case w.ch <- e:
		return true
	case <-w.ctx.Done():
		return false
	}
}

// parseDeviceList reads a device list of host:track-devices (or host:devices): one
// "SERIAL\tSTATE" per line. The state may contain spaces ("no permissions (…)").
func parseDeviceList(msg string) map[string]string {
	m := map[string]string{}
	for line := range strings.Lines(msg) {
		line = strings.TrimRight(line, "\r\n")
		serial, state, ok := strings.Cut(line, "\t")
		serial = strings.TrimSpace(serial)
		if !ok || serial == "" {
			continue
		}
		m[serial] = strings.TrimSpace(state)
	}
	return m
}

// StateHint says what to do about a device in an adb state other than "device".
func StateHint(state string) string {
	switch {
	case state == "unauthorized":
		return "accept the 'Allow USB debugging?' prompt on the phone (tick 'Always allow'); if there is none, revoke USB debugging authorisations in Developer options and replug"
	case state == "authorizing", state == "connecting":
		return "the adb server is still connecting to it; wait a moment"
	case state == "offline":
		return "it does not answer adb; replug it, or run `adb reconnect offline`, or reboot it"
	case strings.HasPrefix(state, "no permissions"):
		return "the adb server may not open the USB device; add a udev rule for it (see developer.android.com/studio/run/device) and replug"
	case state == "recovery", state == "sideload", state == "bootloader", state == "rescue", state == "host":
		return "it is in " + state + " mode; reboot it into Android"
	}
	return "only devices in state \"device\" take commands"
}
