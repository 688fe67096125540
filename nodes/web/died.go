package web

import (
	"context"
	"errors"
	"fmt"

	"github.com/corral-farm/corral/nodes/device"
)

// Every step of a call that Chromium can die under (a crash, a kill by pid, the kernel out of
// memory) answers in the same words: the browser died, what the page may have seen, and that
// the next call starts a new browser. Steps that said it in their own way (bringing a tab to
// the front, taking over a tab a page opened: "... context canceled"; closing a tab: nothing)
// left the notice for the next call too, which then answered "replaced" and did nothing: the
// caller was told twice.

// diedHint says what comes after a call whose browser died.
const diedHint = "the next call starts a new browser on a new profile, without the tabs, cookies and storage: " +
	"app_launch your page again"

// diedBefore says the browser died as the call did step, before it did anything the page saw.
func diedBefore(step string) error {
	return fmt.Errorf("it died as the call %s, before the call did anything (no input event was sent)", step)
}

// errDiedReading says the browser died as the call read the page (a screenshot, its source).
var errDiedReading = errors.New("it died as the call read the page (no input event was sent)")

// errDiedClosing says the browser died as the call closed a tab: the tab went with it.
var errDiedClosing = errors.New("it died as the call closed the tab, which went with it")

// errDiedLoggingIn says the browser died as its page posted a login (login.go).
var errDiedLoggingIn = errors.New("it died as the page posted the login: the site may have had it, but the session it set went with the browser")

// diedUnder is how op answers that the browser of tab (a tab's context, or the browser's)
// died under it, failing with err: ErrBrowserDied, why (what the page may have seen), and
// diedHint ending with then. The death is noted told (died_told.go), so the next call starts
// a new browser and does its work, unless ctx is a look's (the console's live screen), which
// tells no holder: the holder's next call is told as after any crash.
func (d *Driver) diedUnder(ctx, tab context.Context, op string, err, why error, then string) error {
	d.log.Warn("the browser died under a call; the next use starts a new one", "op", op, "err", err)
	if !device.IsLook(ctx) {
		d.toldDied(tab)
	}
	return d.wrap(op, fmt.Errorf("%w: %w", ErrBrowserDied, why), diedHint+then)
}
