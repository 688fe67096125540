package android

import (
	"context"
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
)

func (k EventKind) String() string {
	switch k {
	case Added:
		return "added"
	case Removed:
		return "removed"
	case Unusable:
		return "unusable"
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
}

// redialEvery is how often Watch tries to reach an adb server that went away.
const redialEvery = 250 * time.Millisecond

// handshakeTimeout bounds reconnecting to an adb server that came back.
const handshakeTimeout = 2 * time.Second

// pollEvery is how often Watch also asks for the device list (host:devices): adb servers of
// platform-tools 29 and older do not push on host:track-devices when a device goes offline.
const pollEvery = 250 * time.Millisecond

// Watch follows the device list of the adb server at addr (ServerAddr() when empty): a device
// that becomes ready is Added, one that stops being ready is Removed, and one listed in another
// state is reported Unusable once per state. The list comes from host:track-devices, which the
// server pushes on every change, checked every 250 ms with host:devices for the changes old
// servers do not push. If the adb server goes away, every device is Removed and Watch
// reconnects until ctx ends; the devices the restarted server lists are Added again. Watch
// fails only if the adb server cannot be reached at first. The channel closes when ctx ends.
func Watch(ctx context.Context, addr string) (<-chan Event, error) {
	if addr == "" {
		addr = ServerAddr()
	}
	c, err := openTracker(ctx, addr)
	if err != nil {
		return nil, err
	}
	ch := make(chan Event, 16)
	w := &watcher{ctx: ctx, ch: ch, states: map[string]string{}}
	var wg sync.WaitGroup
	wg.Go(func() { w.poll(addr) })
	go func() {
		defer close(ch)
		defer wg.Wait()
		for {
			w.follow(c)
			if ctx.Err() != nil {
				return
			}
			w.fromTracker(map[string]string{}) // the server is gone, and its devices with it
			for c = nil; c == nil; {
				if sleep(ctx, redialEvery) != nil {
					return
				}
				hctx, cancel := context.WithTimeout(ctx, handshakeTimeout)
				c, _ = openTracker(hctx, addr)
				cancel()
			}
		}
	}()
	return ch, nil
}

// openTracker connects to the adb server and starts host:track-devices.
func openTracker(ctx context.Context, addr string) (net.Conn, error) {
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

// watcher turns device lists into events.
type watcher struct {
	ctx context.Context
	ch  chan<- Event

	mu     sync.Mutex        // serialises updates, so that events leave in order
	states map[string]string // serial → adb state, as last listed
	lists  uint64            // track-devices lists seen: a poll answered meanwhile may be older
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
		lists := w.lists
		w.mu.Unlock()
		ctx, cancel := context.WithTimeout(w.ctx, pollEvery)
		msg, err := hostQuery(ctx, addr, "host:devices")
		cancel()
		if err != nil {
			continue // the tracker notices a server that is gone
		}
		w.mu.Lock()
		if w.lists == lists { // no newer list came from the tracker meanwhile
			w.update(parseDeviceList(msg))
		}
		w.mu.Unlock()
	}
}

// fromTracker applies a list from host:track-devices; false if ctx ended.
func (w *watcher) fromTracker(now map[string]string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lists++
	return w.update(now)
}

// update sends the events that lead from the last list to now; false if ctx ended. The caller
// holds w.mu.
func (w *watcher) update(now map[string]string) bool {
	var events []Event
	for _, serial := range slices.Sorted(maps.Keys(w.states)) {
		if before := w.states[serial]; before == "device" && now[serial] != "device" {
			events = append(events, Event{Kind: Removed, Serial: serial, State: now[serial]})
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
		select {
		case w.ch <- e:
		case <-w.ctx.Done():
			return false
		}
	}
	return true
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
