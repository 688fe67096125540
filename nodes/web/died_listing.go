package web

import (
	"context"
	"errors"
	"fmt"

	"github.com/corral-farm/corral/nodes/device"
)

// A browser that died as a call listed its tabs (the first step of nearly every call) made
// the call answer "list tabs: lost the connection to the browser: EOF: context canceled", and
// the next call answer that the browser had been replaced: it now says the browser died, that
// nothing was done, and that the next call starts a new browser, as an input that died does.

// errDiedListing says the browser died as the call listed its tabs, the call's first step.
var errDiedListing = errors.New("it died as the call listed its tabs, before the call did anything (no input event was sent)")

// listDied is err, how the listing of the tabs of bctx's browser failed as it died, as the
// caller is told it: ErrBrowserDied, the next call starting a new browser. A look (the
// console's live screen) tells no holder: the holder's next call is told as after any crash.
func (d *Driver) listDied(ctx, bctx context.Context, err error) error {
	d.log.Warn("the browser died as a call listed its tabs; the next use starts a new one", "err", err)
	if !device.IsLook(ctx) {
		d.toldDied(bctx)
	}
	return d.wrap("list tabs", fmt.Errorf("%w: %w", ErrBrowserDied, errDiedListing), diedInputHint+", then repeat the call")
}
