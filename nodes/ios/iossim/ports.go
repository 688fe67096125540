package iossim

import (
	"context"
	"log/slog"
	"net/http"
)

// LockdownPort is the port lockdownd listens on, on every device.
const LockdownPort = 62078

const lockdownPort = LockdownPort

// Service ports handed out by StartService: one-shot, from the dynamic range, as lockdownd's.
const (
	firstDynamicPort = 49152
	maxPendingPorts  = 32 // service ports nobody connected to yet; the oldest go first
)

// service serves one connection to a device port. It returns when the connection is done;
// closing c must make it return.
type service func(ctx context.Context, c *pipeConn, log *slog.Logger)

type portEntry struct {
	serve   service
	oneShot bool // a StartService port: gone after its first connection
}

// Handle makes usbmuxd Connects to port reach h, served by net/http, until Unhandle. It
// replaces what the port served before (even lockdown, for a test that wants it broken);
// connections already open keep their handler. A nil h is Unhandle.
func (d *Device) Handle(port uint16, h http.Handler) {
	if h == nil {
		d.Unhandle(port)
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ports[port] = portEntry{serve: httpService(h)}
}

// Unhandle stops answering at port: later Connects are refused and the connections open to it
// are closed, as when the app listening there dies.
func (d *Device) Unhandle(port uint16) {
	d.mu.Lock()
	delete(d.ports, port)
	conns := d.open[port]
	delete(d.open, port)
	d.mu.Unlock()
	for c := range conns {
		_ = c.Close()
	}
}

// connect is usbmuxd's Connect reaching the device: the service at port, with c counted as
// open on it until release. ok is false when nothing listens there.
func (d *Device) connect(port uint16, c *pipeConn) (serve service, release func(), ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	e, ok := d.ports[port]
	if !ok {
		return nil, nil, false
	}
	if e.oneShot {
		delete(d.ports, port)
		for i, p := range d.dynamic {
			if p == port {
				d.dynamic = append(d.dynamic[:i], d.dynamic[i+1:]...)
				break
			}
		}
	}
	if d.open[port] == nil {
		d.open[port] = map[*pipeConn]struct{}{}
	}
	d.open[port][c] = struct{}{}
	return e.serve, func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		delete(d.open[port], c)
		if len(d.open[port]) == 0 {
			delete(d.open, port)
		}
	}, true
}

// openServicePort gives serve a fresh one-shot port, as StartService does; ok is false when
// Handle has taken every dynamic port.
func (d *Device) openServicePort(serve service) (port uint16, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.dynamic) >= maxPendingPorts {
		delete(d.ports, d.dynamic[0])
		d.dynamic = d.dynamic[1:]
	}
	for range 65536 - firstDynamicPort {
		p := d.nextDyn
		d.nextDyn++
		if d.nextDyn < firstDynamicPort { // wrapped past 65535
			d.nextDyn = firstDynamicPort
		}
		if _, used := d.ports[p]; !used {
			d.ports[p] = portEntry{serve: serve, oneShot: true}
			d.dynamic = append(d.dynamic, p)
			return p, true
		}
	}
	return 0, false
}
