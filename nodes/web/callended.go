package web

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// A call whose own deadline (its timeout_ms) ends while it waits for the browser is not a page
// that did not answer: a five-second swipe asked with timeout_ms 1000 on a static page said
// "the page did not answer (its script may hang…): context canceled". It says that the call's
// time ran out first.

// ErrCallEnded says the call's deadline ended, or the call was ended, before the browser was done.
var ErrCallEnded = errors.New("the call's time (timeout_ms) ran out before the browser was done")

// callEndedHint says what to do about a call whose time ran out.
const callEndedHint = "give the call a timeout_ms a few seconds longer than its gesture's duration"

// callEnded is the error of a call whose ctx ended while it waited for the browser. It is
// ctx's error too (errors.Is), but names only a cause the caller gave (the scheduler's
// "deadline of 1s passed"), not "context canceled".
func callEnded(ctx context.Context) error {
	return &endedError{err: ctx.Err(), cause: context.Cause(ctx)}
}

type endedError struct{ err, cause error }

func (e *endedError) Error() string {
	if e.cause != nil && e.cause != e.err {
		return ErrCallEnded.Error() + " (" + e.cause.Error() + ")"
	}
	return ErrCallEnded.Error()
}

func (e *endedError) Unwrap() []error { return []error{ErrCallEnded, e.err, e.cause} }

// held waits dt within an input already begun (a finger down, a first tap made): a call whose
// time runs out meanwhile is ErrCallEnded, and ErrInputSent, as what was sent may act.
func held(ctx context.Context, dt time.Duration) error {
	if err := wait(ctx, dt); err != nil {
		return fmt.Errorf("%w: %w", callEnded(ctx), ErrInputSent)
	}
	return nil
}
