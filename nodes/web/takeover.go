package web

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// A tab a page opened is attached and given the profile's viewport and user agent at the
// first call that finds it in front. A page whose script hangs answers none of that: the
// call waited out its whole deadline ("take over a tab: context deadline exceeded"), and the
// next one attached again. So a call waits takeOverWait at most; the attach goes on, and the
// next call waits for the same one rather than starting another.

// takeOverWait bounds a call's wait for an attach: a dozen commands, which a machine loaded
// twenty deep on two cores took more than cmdWait over, with ten tabs open.
const takeOverWait = 2 * cmdWait

// pendingTab is an attach under way in browser bctx: done closes once err is set.
type pendingTab struct {
	bctx context.Context
	done chan struct{}
	err  error
}

// takeOver returns the context of tab id, attaching to it first, waiting takeOverWait at most (and
// no longer than ctx) for an attach its page does not answer: ErrNoAnswer. One whose browser
// died says so (died.go).
func (d *Driver) takeOver(ctx context.Context, id target.ID) (context.Context, error) {
	d.reached(stepTakeOver)
	d.mu.Lock()
	if tctx, ok := d.tabs[id]; ok {
		d.mu.Unlock()
		return tctx, nil
	}
	p, ok := d.attaching[id]
	if !ok {
		p = &pendingTab{bctx: d.browser, done: make(chan struct{})}
		d.attaching[id] = p
		go d.attachTab(p.bctx, id, p)
	}
	d.mu.Unlock()
	t := time.NewTimer(takeOverWait)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		return nil, ErrNoAnswer
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %w", ErrNoAnswer, ctx.Err())
	}
	if p.err != nil && browserDied(p.bctx) {
		return nil, d.diedUnder(ctx, p.bctx, stepTakeOver, p.err, diedBefore("took over a tab the page opened"), ", then repeat the call")
	}
	if p.err != nil {
		return nil, p.err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.tabs[id], nil
}

// attachTab attaches to tab id of browser bctx, emulates the profile in it and, unless the
// browser was replaced meanwhile, lists it among the attached tabs; it closes p.done.
func (d *Driver) attachTab(bctx context.Context, id target.ID, p *pendingTab) {
	tctx, _ := chromedp.NewContext(bctx, chromedp.WithTargetID(id)) // closed with the browser
	err := chromedp.Do(tctx, d.emulate())
	if err == nil {
		d.answerDialogs(tctx)
		d.followCommits(tctx)
	}
	d.mu.Lock()
	if d.attaching[id] == p {
		delete(d.attaching, id)
	}
	switch {
	case err != nil:
	case d.browser != bctx:
		err = fmt.Errorf("the browser was replaced as the tab was taken over")
	default:
		d.tabs[id] = tctx
	}
	d.mu.Unlock()
	p.err = err
	close(p.done)
}
