package web

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// A browser's start outlives the call that asked for it. Chromium takes a second or more to
// start on a loaded machine: were the start cancelled with each caller's deadline, an elastic
// browser whose callers all give shorter deadlines would never run. So the start goes on in
// the background, bounded by startLimit and by the device's Close, and the browser it makes
// is the device's; the caller whose deadline passed is told that nothing ran and to call
// again, and the next call finds the browser ready, or waits (within its own deadline) for the
// same start.

// startLimit bounds a browser's start that goes on without its caller: a cold Chromium starts
// in well under a second, a loaded machine's in a few.
const startLimit = startTimeout

// ErrStillStarting answers a call whose deadline passed while the device's browser started:
// the call did nothing, and the start goes on for the next call.
var ErrStillStarting = errors.New("nothing ran: the browser is still starting (Chromium takes a few seconds on a loaded machine), and goes on starting past this call's deadline")

// stillStartingHint is what the caller told ErrStillStarting does.
const stillStartingHint = "call again: the next call finds the browser ready, or waits for its start within its own deadline; give a longer timeout_ms if yours is short"

// pendingStart is a browser's start under way; done closes at its end, err then says how it
// went. waiting counts the calls waiting for it (guarded by Driver.mu).
type pendingStart struct {
	done    chan struct{}
	err     error
	waiting int
}

// launch starts a browser on a new profile directory and makes it the device's, or waits for
// the start already under way, within ctx. When ctx ends first it answers ErrStillStarting and
// the start goes on (runStart). Callers hold launching.
func (d *Driver) launch(ctx context.Context) error {
	d.mu.Lock()
	p := d.starting
	if p == nil {
		p = &pendingStart{done: make(chan struct{})}
		d.starting = p
		go d.runStart(p)
	}
	p.waiting++
	d.mu.Unlock()
	select {
	case <-p.done:
		return p.err
	case <-ctx.Done():
		d.mu.Lock()
		p.waiting--
		d.mu.Unlock()
		return d.stillStarting(ctx.Err())
	}
}

// stillStarting is ErrStillStarting for a call that gave up for why (its context's error).
func (d *Driver) stillStarting(why error) error {
	return d.wrap("start", fmt.Errorf("%w (%w)", ErrStillStarting, why), stillStartingHint)
}

// startPending says whether a browser's start is under way.
func (d *Driver) startPending() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.starting != nil
}

// runStart starts a browser for p, within startLimit or until Close, and makes it the
// device's. A browser that dies while it starts (Chromium has crashed at start-up on a loaded
// machine) is tried once more, on a fresh directory. A start no call waits for any more says
// how it went in the log.
func (d *Driver) runStart(p *pendingStart) {
	ctx, cancel := context.WithTimeout(context.Background(), startLimit)
	defer cancel()
	go func() { // Close ends a start under way
		select {
		case <-d.quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	began := time.Now()
	bctx, stop, dir, err := d.startBrowser(ctx)
	if errors.Is(err, errDiedAtStart) && ctx.Err() == nil {
		d.log.Warn("the browser died while starting; trying once more", "err", err)
		bctx, stop, dir, err = d.startBrowser(ctx)
	}
	s := startedBrowser{bctx, stop, dir, err}
	closed := false
	d.mu.Lock()
	if err == nil {
		select {
		case <-d.quit: // closed while it started: Close found nothing to stop
			closed = true
			err = d.wrap("start", errors.New("the device was closed while its browser started"), "")
		default:
			id := chromedp.FromContext(bctx).Target.TargetID
			d.answerDialogs(bctx)
			d.followCommits(bctx)
			d.browser, d.stop, d.dir, d.lastUse = bctx, stop, dir, time.Now()
			d.tabs, d.opened, d.seen, d.front = map[target.ID]context.Context{id: bctx}, map[target.ID]int{id: 0}, 0, ""
			d.attaching = map[target.ID]*pendingTab{}
		}
	}
	p.err, d.starting = err, nil
	unwaited := p.waiting == 0
	d.mu.Unlock()
	close(p.done)
	if closed {
		s.discard()
	}
	switch {
	case !unwaited || closed:
	case err != nil:
		d.log.Warn("the browser's start, which its caller stopped waiting for, failed; the next call tries again", "err", err)
	default:
		d.log.Info("browser started after its caller stopped waiting; the next call finds it ready", "took", time.Since(began).Round(time.Millisecond))
	}
}
