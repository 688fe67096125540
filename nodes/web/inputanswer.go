package web

import (
	"context"
	"errors"
	"fmt"

	"github.com/chromedp/chromedp"
)

// A page whose script hangs answers no input event, nor the frame-tree, layout, focus and
// user-agent commands a tap or a key needs first: they waited out the call's whole deadline
// and said "context canceled". So each query waits cmdWait at most for its answer, as a read
// does (noanswer.go), and each input event inputWait. A query left unanswered is tried again
// as a read is; an input event is not: it may have reached the page, which acts on it once
// its script lets go, and a second try would tap (or type) twice.

// inputWait bounds the wait for an input event's answer, which comes once the page's handlers
// have run: as long as a read's two tries, since an input has one (a click that opened a
// hundred windows took more than cmdWait on a machine loaded twenty deep on two cores).
const inputWait = 2 * cmdWait

// ErrInputSent says an input event went unanswered after it was sent: the page may still act on it.
var ErrInputSent = errors.New("the input was sent, and the page may act on it once it answers")

// inputSentHint says what to do after an input that may yet act.
const inputSentHint = "do not repeat it at once: the page may act on it when it answers; peek first. " +
	"A page that stays so can be left: app_launch another URL, or app_terminate this one"

// send sends one input event (call), waiting inputWait at most for its answer: one unanswered
// is ErrNoAnswer and ErrInputSent, which whileNavigating never tries again; one cut short by
// ctx's end is ErrCallEnded and ErrInputSent.
func send(ctx context.Context, call func(context.Context) error) error {
	markSent(ctx) // whatever comes of it, the page may get it (died_input.go)
	c, cancel := context.WithTimeout(ctx, inputWait)
	defer cancel()
	err := call(c)
	switch {
	case err == nil || c.Err() == nil:
		return err
	case ctx.Err() != nil:
		return fmt.Errorf("%w: %w", callEnded(ctx), ErrInputSent)
	default:
		return fmt.Errorf("%w: %w", ErrNoAnswer, ErrInputSent)
	}
}

// within runs steps in the tab, waiting cmdWait at most for all of them (answered): for
// commands that change nothing the page sees until it answers (emulation, a tab to the front).
func within(steps ...chromedp.Action[chromedp.Void]) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := answered(ctx, func(c context.Context) (struct{}, error) {
			_, err := chromedp.Steps(steps...)(c, t)
			return struct{}{}, err
		})
		return err
	})
}

// inputHint is the hint for an input call that failed with err: what to do about a page that
// did not answer; none for other failures.
func inputHint(err error) string {
	if errors.Is(err, ErrNoAnswer) || errors.Is(err, ErrCallEnded) {
		return hintFor(err)
	}
	return ""
}
