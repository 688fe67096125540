package web

import "context"

// A browser that died as a call listed its tabs (the first step of nearly every call) made
// the call answer "list tabs: lost the connection to the browser: EOF: context canceled", and
// the next call answer that the browser had been replaced: it now says the browser died, that
// nothing was done, and that the next call starts a new browser, as an input that died does.

// errDiedListing says the browser died as the call listed its tabs, the call's first step.
var errDiedListing = diedBefore("listed its tabs")

// listDied is err, how the listing of the tabs of bctx's browser failed as it died, as the
// caller is told it: ErrBrowserDied, the next call starting a new browser. A look (the
// console's live screen) tells no holder: the holder's next call is told as after any crash.
func (d *Driver) listDied(ctx, bctx context.Context, err error) error {
	return d.diedUnder(ctx, bctx, "list tabs", err, errDiedListing, ", then repeat the call")
}
