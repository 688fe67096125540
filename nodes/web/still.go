package web

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/chromedp"
)

// A swipe's fling scrolls the page on after the finger lifts, for a second or more: a swipe
// that answered then had the next peek's screenshot and source read at different scroll
// positions (boxes 80-130 pixels off the image) and a tap land beside what it listed. So a
// swipe answers once the page is still, and the reads (screenshot, source) wait for that too,
// so that two taken one after the other show one state.

// stillFrames is how many animation frames in a row the page must not scroll or zoom to be
// still: a fling moves it every frame, and starts within a frame or two of the lift.
const stillFrames = 3

// swipeStill bounds a swipe's wait: a long fling ends well within it.
const swipeStill = 3 * time.Second

// readStill bounds a read's wait, shorter: a page that scrolls itself for ever (a marquee, a
// carousel) is read as it is then, and the console's live screen takes screenshot after screenshot.
const readStill = time.Second

// stillJS resolves once the page has not scrolled (the window or any element, as scroll
// events tell) nor zoomed over stillFrames animation frames in a row; a frame that does not
// come (a hidden tab) counts after a tenth of a second.
var stillJS = fmt.Sprintf(`new Promise(done => {
  const v = window.visualViewport;
  const pos = () => [scrollX, scrollY, v ? v.pageLeft : 0, v ? v.pageTop : 0, v ? v.scale : 1].join();
  let moved = false;
  const seen = () => { moved = true; };
  addEventListener("scroll", seen, {capture: true, passive: true});
  if (v) v.addEventListener("scroll", seen, {passive: true});
  const finish = () => { removeEventListener("scroll", seen, {capture: true}); if (v) v.removeEventListener("scroll", seen); done(true); };
  let last = pos(), same = 0;
  const next = f => { let ran = false; const go = () => { if (!ran) { ran = true; f(); } }; requestAnimationFrame(() => setTimeout(go)); setTimeout(go, 100); };
  const step = () => {
    const p = pos();
    if (p === last && !moved) same++; else same = 0;
    last = p; moved = false;
    if (same >= %d) finish(); else next(step);
  };
  next(step);
})`, stillFrames)

// untilStill waits until the page in front is still, or bound or ctx ends: a page that
// cannot tell (between two pages, its script hung) is not the caller's failure, and the
// caller goes on.
func untilStill(bound time.Duration) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		wctx, cancel := context.WithTimeout(ctx, bound)
		defer cancel()
		_, err := chromedp.Evaluate[bool](stillJS, chromedp.EvalAwaitPromise)(wctx, t)
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		return nil
	})
}
