package web

import (
	"context"
	"errors"
	"time"
)

// A command sent to a tab as its page is replaced can go unanswered: Chromium drops it with
// the old document (a page that reloads itself without end lost screenshots so), and one sent
// to a page whose script hangs is never answered; the call then waited out its whole
// deadline and said "context canceled". So a read waits cmdWait at most for its answer; one
// unanswered is tried again as one that met a navigation is (whileNavigating), and past the
// caller's deadline says that the page did not answer.

// cmdWait bounds the wait for one command's answer: a screenshot or a DOM listing takes well
// under a second, a loaded machine's a few.
const cmdWait = 5 * time.Second

// ErrNoAnswer says the page answered none of the tries within the call's deadline.
var ErrNoAnswer = errors.New("the page did not answer (its script may hang, or it reloads itself without end)")

// noAnswerHint says what to do about a page that does not answer.
const noAnswerHint = "try again; a page that stays so can be left: app_launch another URL, or app_terminate this one"

// answered runs f with a context that ends after cmdWait, or with ctx: a command its page
// did not answer in time is ErrNoAnswer; one cut short by ctx's end is ErrCallEnded.
func answered[R any](ctx context.Context, f func(context.Context) (R, error)) (R, error) {
	c, cancel := context.WithTimeout(ctx, cmdWait)
	defer cancel()
	r, err := f(c)
	switch {
	case err == nil || c.Err() == nil:
		return r, err
	case ctx.Err() != nil:
		return r, callEnded(ctx) // the caller's time, not the page's (callended.go)
	default:
		return r, ErrNoAnswer
	}
}

// hintFor is the hint for a call that failed with err: what to do about a page that did not
// answer (an input it may yet act on, inputanswer.go), or stayed between two pages; none for
// other failures.
func hintFor(err error) string {
	if errors.Is(err, ErrCallEnded) && errors.Is(err, ErrInputSent) {
		return callEndedHint + "; what was sent may act: peek before you repeat it"
	}
	if errors.Is(err, ErrCallEnded) {
		return callEndedHint
	}
	if errors.Is(err, ErrInputSent) {
		return inputSentHint
	}
	if errors.Is(err, ErrNoAnswer) || errors.Is(err, ErrNavigating) {
		return noAnswerHint
	}
	return ""
}
