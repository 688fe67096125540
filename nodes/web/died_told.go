package web

import (
	"context"

	"github.com/chromedp/chromedp"
)

// A call that answers ErrBrowserDied tells its caller that the browser died and that the next
// call starts a new one. That next call answered ErrBrowserReplaced all the same ("this call
// did nothing"): the caller was told twice, and its work refused. So a death a call's answer
// told is noted, and the use that replaces that browser starts the new one without the notice.

// browserOf is the browser that ctx (a tab's, or the browser's own) runs in; nil for none.
func browserOf(ctx context.Context) *chromedp.Browser {
	if ctx == nil {
		return nil
	}
	if c := chromedp.FromContext(ctx); c != nil {
		return c.Browser
	}
	return nil
}

// toldDied notes that a call's answer tells its caller that the browser of tab died, and
// that the next call starts a new one: the use that replaces it tells nothing (noteCrash),
// and a notice another use left for it (a look, or a screenshot, found it dead first) is
// dropped.
func (d *Driver) toldDied(tab context.Context) {
	b := browserOf(tab)
	if b == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.replaced && d.replacedOf == b:
		d.replaced, d.replacedOf = false, nil
	case browserOf(d.browser) == b: // not replaced yet
		d.diedTold = b
	}
}

// deathToldLocked says whether a call's answer told that b died, and forgets it: b is being
// replaced. Callers hold mu.
func (d *Driver) deathToldLocked(b *chromedp.Browser) bool {
	told := b != nil && d.diedTold == b
	d.diedTold = nil
	return told
}
