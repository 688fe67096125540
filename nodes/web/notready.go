package web

import (
	"context"
	"errors"
	"fmt"
)

// A call whose deadline passed before the browser was ready for it (the deadline had passed
// as it came, or passed while the browser was being started, stopped or checked for another
// call) said "start: waiting for the browser's start: context deadline exceeded": nothing
// said that nothing ran, nor what to do.

// ErrNotReady answers a call whose deadline passed before the browser was ready for it.
var ErrNotReady = errors.New("nothing ran: the call's deadline passed before the browser was ready for it")

// notReadyHint says what to do after ErrNotReady.
const notReadyHint = "call again, with a longer timeout_ms: a browser's start or reset takes a few seconds on a loaded machine"

// ErrAbortedBeforeReady answers a call stopped (abort_task, or its caller went away) before
// the browser was ready for it.
var ErrAbortedBeforeReady = errors.New("nothing ran: the call was aborted before the browser was ready for it")

// notReady says why a call that waited for the browser (why: its context's error) did nothing.
func (d *Driver) notReady(why error) error {
	if errors.Is(why, context.Canceled) {
		return d.wrap("wait for the browser", fmt.Errorf("%w (%w)", ErrAbortedBeforeReady, why), "")
	}
	return d.wrap("wait for the browser", fmt.Errorf("%w (%w)", ErrNotReady, why), notReadyHint)
}
