package web

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// A navigation that fails (app_launch of a site that answers no page, a navigation error, the
// call's deadline) leaves the device as it was: the tab opened for it is closed, and a tab that
// was open goes back to the page it showed. Left on the failed URL, the tab would lose that page
// and list a launch that never happened, which app_terminate would then "terminate".

// undoWait bounds the undoing once the call's context has ended (its deadline, an abort): it
// must end well within the time a cancelled driver has to return (actors.DefaultGrace, 1 s).
const undoWait = 500 * time.Millisecond

// undoContext lasts as long as ctx, and undoWait more once ctx has ended.
func undoContext(ctx context.Context) (context.Context, context.CancelFunc) {
	u, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(undoWait, cancel) })
	return u, func() { stop(); cancel() }
}

// shownEntry is the id of the history entry tab c shows; 0 when it cannot tell.
func shownEntry(c context.Context) int64 {
	h, err := chromedp.Call(c, page.GetNavigationHistory, cdp.Empty{})
	if err != nil || h.CurrentIndex < 0 || h.CurrentIndex >= int64(len(h.Entries)) {
		return 0
	}
	return h.Entries[h.CurrentIndex].ID
}

// undoNavigation undoes a failed navigation of tab: it closes the tab when it was opened for it,
// or stops what is still loading and goes back to history entry was. It reports whether the
// device is as it was.
func (d *Driver) undoNavigation(ctx, tab context.Context, opened bool, was int64) bool {
	uctx, cancel := undoContext(ctx)
	defer cancel()
	if opened {
		return d.closeOpened(uctx, chromedp.FromContext(tab).Target.TargetID)
	}
	c, done := bound(uctx, tab)
	defer done()
	// A navigation still under way (the deadline case) would otherwise arrive later; the tab may
	// still be taking its error page in, which whileNavigating waits for.
	stop := func() error {
		_, err := chromedp.Call(c, page.StopLoading, cdp.Empty{})
		return err
	}
	if err := whileNavigating(c, stop); err != nil {
		d.log.Warn("a failed navigation could not be stopped; the tab may show its page", "err", err)
		return false
	}
	if was == 0 {
		return false
	}
	if shownEntry(c) == was {
		return true
	}
	// The error page the browser shows took a history entry: go back to the one before.
	if err := chromedp.Do(c, chromedp.NavigateToHistoryEntry(was)); err != nil {
		d.log.Warn("a failed navigation's tab could not go back to its page", "err", err)
		return false
	}
	return true
}

// closeOpened closes tab id, opened for a navigation that failed.
func (d *Driver) closeOpened(ctx context.Context, id target.ID) bool {
	bctx, done := bound(ctx, d.browserCtx())
	defer done()
	if _, err := chromedp.CallBrowser(bctx, target.CloseTarget, target.CloseTargetParams{TargetID: id}); err != nil {
		d.log.Warn("the tab opened for a failed navigation could not be closed", "err", err)
		return false
	}
	d.mu.Lock()
	delete(d.tabs, id)
	d.opened[id] = -1 // a closed tab may be listed a little longer
	d.mu.Unlock()
	return true
}
