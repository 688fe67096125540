package web

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/corral-farm/corral/nodes/device"
)

// A browser that answers nothing (its Chromium stopped by `kill -STOP`, or wedged) is not
// crashed: its process lives, so use never replaces it, and the device stayed unhealthy for
// ever. So the health check judges it hung when it does not list its tabs within hungAfter,
// or at once when its process is stopped, and replaces it as a crashed one is replaced: the
// old one killed, its profile removed, the next call told.

// hungAfter is how long a browser may take to list its tabs before a health check counts it
// hung: it answers in milliseconds, a loaded machine's in well under a second.
const hungAfter = 5 * time.Second

// errHung marks a browser that a health check found hung and replaced.
var errHung = errors.New("the browser answered nothing (hung, or its process stopped): it was killed and a new one started")

// checkAnswers lists the browser's tabs, waiting hungAfter at most, or half of what is left of
// ctx so that a hung browser can still be replaced within it. It answers errHung once it has
// replaced a browser found hung.
func (d *Driver) checkAnswers(ctx context.Context) error {
	release, err := d.acquire(device.Look(ctx))
	if errors.Is(err, ErrStopped) || errors.Is(err, ErrStarting) || errors.Is(err, ErrStillStarting) {
		return nil
	}
	if err != nil {
		return err
	}
	bctx := d.browserCtx()
	wait := hungAfter
	if dl, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl)/2)
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	c, done := bound(wctx, bctx)
	_, err = chromedp.Targets(c)
	done()
	cancel()
	release()
	switch {
	case err == nil:
		return nil
	case ctx.Err() == nil && wctx.Err() != nil && (wait >= hungAfter || d.frozen()):
		return d.replaceHung(ctx, bctx, wait)
	case ctx.Err() == nil && wctx.Err() != nil:
		return d.wrap("list tabs", fmt.Errorf("the browser did not answer within %s", wait.Round(time.Millisecond)),
			fmt.Sprintf("it is checked again; one that does not answer within %s is restarted", hungAfter))
	default:
		return d.wrap("list tabs", err, "")
	}
}

// replaceHung stops the hung browser bctx (unless a reset replaced it meanwhile) as a crashed
// one is stopped, for the next use to start a new one and its caller to be told; waited is
// how long it was given. It answers errHung.
func (d *Driver) replaceHung(ctx, bctx context.Context, waited time.Duration) error {
	if err := d.launching.lock(ctx); err != nil {
		return d.wrap("restart", fmt.Errorf("the browser answered nothing, and its restart waited: %w", err), "it is checked again")
	}
	defer d.launching.unlock()
	d.mu.Lock()
	same := d.browser == bctx
	if same {
		d.replaced, d.replacedOf = true, browserOf(bctx)
	}
	d.mu.Unlock()
	if same {
		d.log.Warn("the browser answered nothing; killing it and starting a new one (its tabs, cookies and storage are gone; the next call is told)",
			"waited", waited.Round(time.Millisecond), "stopped", d.frozen())
		_ = d.shutdown() // a failure to remove the profile is logged
	}
	return errHung
}

// frozen says whether a process of the running browser (one whose command line names its
// profile directory) is stopped: `kill -STOP`, or a debugger holding it.
func (d *Driver) frozen() bool {
	d.mu.Lock()
	dir := d.dir
	d.mu.Unlock()
	if dir == "" {
		return false
	}
	want := "--user-data-dir=" + dir
	for _, p := range processes() {
		if (p.state == "T" || p.state == "t") && slices.Contains(p.args(), want) {
			return true
		}
	}
	return false
}
