package web

import (
	"context"
	"errors"
	"syscall"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/corral-farm/corral/nodes/device"
)

// A node's browser devices beyond its floor are elastic: each starts its browser at its first
// use and stops it after Options.Idle unused, so a node can offer more browsers than it keeps
// running. use and stopWhenIdle keep a browser from stopping while something uses it, and
// Leased while its device is leased: a holder who thinks longer than Idle between calls finds
// its pages, cookies and storage as it left them. A look (device.Look: the health check, the
// console's live screen) is not a use: it never starts a stopped browser (ErrStopped) and does
// not keep one from stopping, so a node started with --web-max runs only its floor's browsers
// until someone uses the others.

// use marks the browser in use until release is called, starting it first if none runs, or
// again if it crashed. The first use after a crash answers ErrBrowserReplaced instead, once:
// the call does nothing, and its caller learns that the pages, cookies and storage it had are
// gone (a holder's lease outlives the browser).
func (d *Driver) use(ctx context.Context) (release func(), err error) {
	release, err = d.acquire(ctx)
	if err != nil {
		return nil, err
	}
	if err := d.replacedNotice(true); err != nil {
		release()
		return nil, err
	}
	return release, nil
}

// peekReplaced answers ErrBrowserReplaced while no call has been told that the browser was
// replaced, and leaves that for the next call: screenshots use it, since the console's live
// screen takes them between a holder's calls and must not be the one told.
func (d *Driver) peekReplaced(ctx context.Context) error {
	release, err := d.acquire(ctx)
	if err != nil {
		return err
	}
	release()
	return d.replacedNotice(false)
}

// replacedNotice is ErrBrowserReplaced if the browser was replaced after a crash and no call
// has been told yet; told marks it told.
func (d *Driver) replacedNotice(told bool) error {
	d.mu.Lock()
	replaced := d.replaced
	if told {
		d.replaced = false
	}
	d.mu.Unlock()
	if !replaced {
		return nil
	}
	return d.wrap("restart", ErrBrowserReplaced, "this call did nothing: open your page again with app_launch, "+
		"and sign in again where the site needs it")
}

// acquire is use without the notice: health checks start or replace the browser without
// taking the notice meant for the device's callers. A look (device.Look) does not wait for a
// browser that is starting or stopping (a reset for the next holder): it answers ErrStarting.
// At an elastic device it starts none: a browser that is not running (stopped, or found
// crashed and cleared away for the next use to replace) answers ErrStopped, and the look does
// not count as a use for idleness.
func (d *Driver) acquire(ctx context.Context) (release func(), err error) {
	if err := ctx.Err(); err != nil && !device.IsLook(ctx) { // else the lock, if free, might be taken
		return nil, d.notReady(err)
	}
	if device.IsLook(ctx) {
		if !d.launching.tryLock() {
			return nil, d.wrap("look", ErrStarting, "look again in a moment")
		}
	} else if err := d.launching.lock(ctx); err != nil {
		if d.startPending() {
			return nil, d.stillStarting(err)
		}
		return nil, d.notReady(err)
	}
	defer d.launching.unlock()
	look := d.lazy && device.IsLook(ctx)
	if crashed, tell := d.noteCrash(); crashed {
		told := "the next call is told"
		if !tell {
			told = "the call it died under said so"
		}
		if look {
			d.log.Warn("the browser died; its next use starts a new one (its tabs, cookies and storage are gone; " + told + ")")
		} else {
			d.log.Warn("the browser died; starting a new one (its tabs, cookies and storage are gone; " + told + ")")
		}
		_ = d.shutdown()
	}
	d.mu.Lock()
	running := d.stop != nil
	if running {
		d.inflight++
	}
	d.mu.Unlock()
	if !running {
		if look {
			return nil, d.wrap("look", ErrStopped, "any call on the device starts it")
		}
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
		if !look {
			d.lastUse = time.Now()
		}
		d.mu.Unlock()
	}, nil
}

// ErrStopped answers a look at an elastic device whose browser is not running: its next use
// starts one.
var ErrStopped = errors.New("the browser is stopped until the device's next use")

// ErrStarting answers a look at a device whose browser is starting or stopping (a reset for
// its next holder): the look does not wait for it.
var ErrStarting = errors.New("the browser is starting")

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
		idle := d.idleLocked()
		d.mu.Unlock()
		if !idle || !d.launching.tryLock() { // a start under way is a use
			continue
		}
		d.mu.Lock()
		idle = d.idleLocked()
		d.mu.Unlock()
		if idle {
			d.noteCrash() // a crash found here is told at the next use all the same (unless a call told it)
			_ = d.shutdown()
			d.log.Info("browser stopped: idle", "for", d.idle)
		}
		d.launching.unlock()
	}
}

// idleLocked says whether the browser may stop for idleness: it runs, unused for d.idle, and
// its device is not leased. Callers hold mu.
func (d *Driver) idleLocked() bool {
	unused := d.stop != nil && d.inflight == 0 && time.Since(d.lastUse) >= d.idle
	if unused {
		d.unusedSeen++
	}
	return unused && !d.leased
}

// Leased tells the device whether it is leased (the node calls it as a lease is granted and
// ends): a leased browser does not stop for idleness. Once the lease ends it stops when it
// has been unused for Options.Idle.
func (d *Driver) Leased(held bool) {
	d.mu.Lock()
	d.leased = held
	d.mu.Unlock()
}

// noteCrash marks the browser replaced, for the next call to be told, if it crashed and no
// call's answer has told its death already (died_told.go); it says whether it crashed, and
// whether the next call is told. Callers hold launching.
func (d *Driver) noteCrash() (crashed, tell bool) {
	if !d.crashed() {
		return false, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	b := browserOf(d.browser)
	if d.deathToldLocked(b) {
		return true, false
	}
	d.replaced, d.replacedOf = true, b
	return true, true
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
	if browserDied(bctx) { // its process is being killed and reaped: it is no use any more
		return true
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
