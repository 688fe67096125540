package iossim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// ErrClosed is returned by Restart after Close.
var ErrClosed = errors.New("iossim: host is closed")

// Host is a simulated usbmuxd on a TCP port, with the devices plugged into it.
type Host struct {
	log    *slog.Logger
	addr   string // fixed by the first listen, kept by Restart
	buid   string // the host's SystemBUID, ReadBUID's answer
	ctx    context.Context
	cancel context.CancelFunc
	life   sync.Mutex     // serialises Restart and Close, which wait on wg
	wg     sync.WaitGroup // the accept loop and every connection's goroutines

	mu        sync.Mutex // guards everything below
	ln        net.Listener
	closed    bool
	conns     map[*muxConn]struct{}
	attached  map[string]*attachment // by UDID
	known     map[string]*Device     // every device ever attached: usbmuxd keeps pair records
	nextID    uint64
	listeners map[*listener]struct{}
}

// attachment is a device plugged into the host, under the DeviceID it got on Attach.
type attachment struct {
	dev *Device
	id  uint64
}

// muxConn is one client connection; dev is the device it connected to, if any.
type muxConn struct {
	c   *pipeConn
	dev *Device // guarded by Host.mu
}

// Start runs a usbmuxd on addr ("127.0.0.1:0" for a free port). A nil log logs nowhere.
func Start(addr string, log *slog.Logger) (*Host, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("iossim: usbmuxd listening on %s: %w (use 127.0.0.1:0 for a free port)", addr, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &Host{
		log:       log.With("component", "iossim"),
		addr:      ln.Addr().String(),
		buid:      strings.ToUpper(uuid.NewString()),
		ctx:       ctx,
		cancel:    cancel,
		ln:        ln,
		conns:     map[*muxConn]struct{}{},
		attached:  map[string]*attachment{},
		known:     map[string]*Device{},
		listeners: map[*listener]struct{}{},
	}
	h.wg.Go(func() { h.accept(ln) })
	return h, nil
}

// Addr is the host:port usbmuxd listens on, what USBMUXD_SOCKET_ADDRESS takes.
func (h *Host) Addr() string { return h.addr }

func (h *Host) accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			h.log.Warn("usbmuxd accept failed", "err", err)
			select { // e.g. out of file descriptors: let some close
			case <-h.ctx.Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
			continue
		}
		mc := &muxConn{c: newPipeConn(c)}
		h.mu.Lock()
		if h.ln != ln { // Restart or Close got here first
			h.mu.Unlock()
			_ = c.Close()
			return
		}
		h.conns[mc] = struct{}{}
		h.mu.Unlock()
		h.wg.Go(func() { h.serveMux(mc) })
	}
}

// Attach plugs a device in: it gets a new DeviceID and Listen clients get Attached.
// Attaching an attached device does nothing.
func (h *Host) Attach(d *Device) {
	if d == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || h.attached[d.udid] != nil {
		return
	}
	h.nextID++
	a := &attachment{dev: d, id: h.nextID}
	h.attached[d.udid] = a
	h.known[d.udid] = d
	d.plugged(h)
	h.broadcastLocked(a.message())
	h.log.Info("device attached", "udid", d.udid, "device_id", a.id)
}

// Detach unplugs a device: Listen clients get Detached (with only the DeviceID) and every
// connection open to the device is closed.
func (h *Host) Detach(udid string) {
	h.mu.Lock()
	a := h.attached[udid]
	if a == nil {
		h.mu.Unlock()
		return
	}
	delete(h.attached, udid)
	a.dev.plugged(nil)
	h.broadcastLocked(muxNotice{DeviceID: a.id, MessageType: "Detached"})
	var open []*pipeConn
	for mc := range h.conns {
		if mc.dev == a.dev {
			open = append(open, mc.c)
		}
	}
	h.mu.Unlock()
	for _, c := range open {
		_ = c.Close()
	}
	h.log.Info("device detached", "udid", udid, "device_id", a.id, "closed_connections", len(open))
}

// notifyPaired tells Listen clients that an attached device has a pair record now.
func (h *Host) notifyPaired(d *Device) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if a := h.attached[d.udid]; a != nil && a.dev == d {
		h.broadcastLocked(muxNotice{DeviceID: a.id, MessageType: "Paired"})
	}
}

// Restart is usbmuxd restarting: every client connection, Listen ones too, is closed, and it
// listens again on the same address. Devices stay attached but are numbered anew, as a new
// usbmuxd enumerates them again: clients must not keep DeviceIDs across a restart.
func (h *Host) Restart() error {
	h.life.Lock()
	defer h.life.Unlock()
	if err := h.stop(false); err != nil {
		return err
	}
	return h.listenAgain()
}

// Stop is usbmuxd stopping: every client connection is closed and nothing listens on its
// address until Resume, which is usbmuxd started again (as after Restart, the devices, still
// plugged in, are numbered anew). Stopping a stopped host does nothing.
func (h *Host) Stop() error {
	h.life.Lock()
	defer h.life.Unlock()
	return h.stop(false)
}

// Resume listens again on the address after Stop; on a host that listens it does nothing.
func (h *Host) Resume() error {
	h.life.Lock()
	defer h.life.Unlock()
	h.mu.Lock()
	closed, listening := h.closed, h.ln != nil
	h.mu.Unlock()
	switch {
	case closed:
		return ErrClosed
	case listening:
		return nil
	}
	return h.listenAgain()
}

// listenAgain numbers the devices anew and listens on the address again; h.life is held.
func (h *Host) listenAgain() error {
	h.mu.Lock()
	for _, a := range h.attached {
		h.nextID++
		a.id = h.nextID
	}
	h.mu.Unlock()
	ln, err := net.Listen("tcp", h.addr)
	if err != nil {
		return fmt.Errorf("iossim: usbmuxd listening again on %s: %w", h.addr, err)
	}
	h.mu.Lock()
	h.ln = ln
	h.mu.Unlock()
	h.wg.Go(func() { h.accept(ln) })
	h.log.Info("usbmuxd restarted", "addr", h.addr)
	return nil
}

// Close stops the host: it closes every connection and waits for every goroutine it started.
func (h *Host) Close() error {
	h.life.Lock()
	defer h.life.Unlock()
	if h.stop(true) == ErrClosed {
		return nil // closed already
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, a := range h.attached {
		a.dev.plugged(nil)
	}
	return nil
}

// stop closes the listener and every connection and waits until all is quiet.
func (h *Host) stop(final bool) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return ErrClosed
	}
	h.closed = final
	ln := h.ln
	h.ln = nil
	open := make([]*pipeConn, 0, len(h.conns))
	for mc := range h.conns {
		open = append(open, mc.c)
	}
	h.mu.Unlock()
	if final {
		h.cancel()
	}
	if ln != nil {
		_ = ln.Close()
	}
	for _, c := range open {
		_ = c.Close()
	}
	h.wg.Wait()
	return nil
}

func (h *Host) forget(mc *muxConn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.conns, mc)
}

// message is the Attached message for a device, as ListDevices and Listen send it.
func (a *attachment) message() muxAttached {
	return muxAttached{
		DeviceID:    a.id,
		MessageType: "Attached",
		Properties: muxProperties{
			ConnectionSpeed: 480_000_000,
			ConnectionType:  "USB",
			DeviceID:        a.id,
			LocationID:      0x0110_0000 + a.id<<16,
			ProductID:       0x12A8, // iPhone
			SerialNumber:    a.dev.udid,
			USBSerialNumber: strings.ReplaceAll(a.dev.udid, "-", ""),
			UDID:            a.dev.udid,
		},
	}
}

// attachedLocked lists attached devices by DeviceID.
func (h *Host) attachedLocked() []*attachment {
	out := make([]*attachment, 0, len(h.attached))
	for _, a := range h.attached {
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b *attachment) int { return cmp.Compare(a.id, b.id) })
	return out
}

func (h *Host) deviceList() muxDeviceList {
	h.mu.Lock()
	defer h.mu.Unlock()
	list := muxDeviceList{DeviceList: []muxAttached{}}
	for _, a := range h.attachedLocked() {
		list.DeviceList = append(list.DeviceList, a.message())
	}
	return list
}

// knownDevice is a device usbmuxd has seen, by UDID, for pair records.
func (h *Host) knownDevice(udid string) *Device {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.known[udid]
}
