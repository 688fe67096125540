package web

import (
	"context"
	"errors"
	"fmt"

	"github.com/chromedp/chromedp"
)

// A launch that failed because its browser died, because its caller stopped it, or because
// its deadline passed while the page loaded, is not (or not surely) the URL's fault: its error
// said "check the URL, and that the site answers" all the same. These say what happened instead.

// ErrBrowserDied answers a call whose browser died (crashed, or was killed) under it.
var ErrBrowserDied = errors.New("the browser died (crashed, or was killed) during the call")

// ErrAborted answers a call stopped (abort_task, or its caller went away) before it was done.
var ErrAborted = errors.New("the call was aborted before the page had loaded (abort_task, or its caller went away)")

// ErrNotLoaded answers a launch whose page had not loaded when the call's deadline passed.
var ErrNotLoaded = errors.New("the page had not loaded when the call's deadline passed (a slow site, or a script that hangs)")

// notLoadedHint says what to do after a launch's deadline passed before its page loaded.
const notLoadedHint = "app_launch it again with a longer timeout_ms, or check that the site answers"

// timedOut is err said as ErrNotLoaded when ctx's deadline passed.
func timedOut(ctx context.Context, err error) (error, bool) {
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return err, false
	}
	return fmt.Errorf("%w: %w", ErrNotLoaded, err), true
}

// browserDied says whether the browser of tab has lost its connection: it died.
func browserDied(tab context.Context) bool {
	c := chromedp.FromContext(tab)
	if c == nil || c.Browser == nil {
		return false
	}
	select {
	case <-c.Browser.LostConnection:
		return true
	default:
		return false
	}
}

// errDiedLoading says the browser died as its tab loaded a page (died.go).
var errDiedLoading = errors.New("it died as the tab loaded the page: the URL was not at fault")

// aborted is err said as ErrAborted when ctx was cancelled (not timed out): a lost browser's
// error is context.Canceled too, so callers rule that out first.
func aborted(ctx context.Context, err error) (error, bool) {
	if !errors.Is(ctx.Err(), context.Canceled) {
		return err, false
	}
	return fmt.Errorf("%w: %w", ErrAborted, err), true
}
