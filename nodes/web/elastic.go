package web

import (
	"context"
	"syscall"
	"time"

	"github.com/chromedp/chromedp"
)

// A node's browser devices beyond its floor are elastic: each starts its browser at its first
// use and stops it after Options.Idle unused, so a node can offer more browsers than it keeps
// running. use and stopWhenIdle keep a browser from stopping while something uses it.

// use marks the browser in use until release is called, starting it first if none runs, or
// again if it crashed.
func (d *Driver) use(ctx context.Context) (release func(), err error) {
	d.launching.Lock()
	defer d.launching.Unlock()
	if d.crashed() {
		d.log.Warn("the browser died; starting a new one")
		_ = d.shutdown()
	}
	d.mu.Lock()
	running := d.stop != nil
	if running {
		d.inflight++
	}
	d.mu.Unlock()
	if !running {
		if err := d.launch(ctx); err != nil {
			return nil, err
		}
		d.log.Info("browser started for its first use")
		d.mu.Lock()
		d.inflight++
		d.mu.Unlock()
	}
	return func() {
		d.mu.Lock()
		d.inflight--
		d.lastUse = time.Now()
		d.mu.Unlock()
	}, nil
}

// stopWhenIdle stops the browser once it has been unused for d.idle, until Close.
func (d *Driver) stopWhenIdle() {
	tick := time.NewTicker(max(d.idle/4, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-d.quit:
			return
		case <-tick.C:
		}
		d.mu.Lock()
		idle := d.stop != nil && d.inflight == 0 && time.Since(d.lastUse) >= d.idle
		d.mu.Unlock()
		if !idle || !d.launching.TryLock() { // a start under way is a use
			continue
		}
		d.mu.Lock()
		idle = d.stop != nil && d.inflight == 0 && time.Since(d.lastUse) >= d.idle
		d.mu.Unlock()
		if idle {
			_ = d.shutdown()
			d.log.Info("browser stopped: idle", "for", d.idle)
		}
		d.launching.Unlock()
	}
}

// crashed says whether the browser's process has ended while the device still counts it as
// running (it crashed, or was killed).
func (d *Driver) crashed() bool {
	d.mu.Lock()
	bctx, running := d.browser, d.stop != nil
	d.mu.Unlock()
	if !running || bctx == nil {
		return false
	}
	c := chromedp.FromContext(bctx)
	if c == nil || c.Browser == nil || c.Browser.Process() == nil {
		return false
	}
	return c.Browser.Process().Signal(syscall.Signal(0)) != nil
}

// Running says whether the device's browser runs now.
func (d *Driver) Running() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stop != nil
}
