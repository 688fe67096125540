package web

import (
	"context"
	"errors"
	"sync/atomic"
)

// A browser that died (Chromium crashed, or was killed) while a tap, a key or typing was under
// way took the call down with it, and the call said "the page did not answer ... the input was
// sent, and the page may act on it once it answers": no page ever would. So an input whose
// browser died says so, what comes next, and whether an input event had been sent, which the
// page may have acted on (a form sent, a request made) before it went with the browser.

// errSentAsItDied says an input event had been sent when the browser died.
var errSentAsItDied = errors.New("an input event had been sent: the page may have acted on it (sent a form, made a request) before it died with the browser")

// errNoneSent says the browser died before any input event was sent.
var errNoneSent = errors.New("no input event had been sent: nothing reached the page")

// sentKey is the context key of a call's mark that an input event was sent (withSent).
type sentKey struct{}

// withSent is ctx with a mark that send sets as it sends an input event.
func withSent(ctx context.Context) (context.Context, *atomic.Bool) {
	sent := &atomic.Bool{}
	return context.WithValue(ctx, sentKey{}, sent), sent
}

// markSent sets ctx's mark (withSent), if it has one: an input event is on its way.
func markSent(ctx context.Context) {
	if sent, ok := ctx.Value(sentKey{}).(*atomic.Bool); ok {
		sent.Store(true)
	}
}

// inputFailed is err, how op's steps in tab failed, as the caller is told it: as
// ErrBrowserDied when the browser died under them, saying whether an input event had been
// sent (sent, nil for none); else with hint.
func (d *Driver) inputFailed(op string, tab context.Context, sent *atomic.Bool, err error, hint string) error {
	if !browserDied(tab) {
		return d.wrap(op, err, hint)
	}
	if sent != nil && sent.Load() {
		return d.diedUnder(tab, tab, op, err, errSentAsItDied, ", and look at what the input did before you repeat it")
	}
	return d.diedUnder(tab, tab, op, err, errNoneSent, ", and repeat the input")
}
