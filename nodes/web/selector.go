package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/corral-farm/corral/nodes/device"
)

// locateJS finds the index-th element (0 the first, -1 the last) a CSS selector or an XPath
// (one starting with / or ( ) matches, in document order, scrolls it into the middle of the
// viewport and returns its box's centre as input events take it (CSS pixels from the visual
// viewport's corner: viewport.go), or {"error": ...} for a selector that does not parse, or
// {"none": true, "count": n} with how many match when none is at index.
const locateJS = `((sel, index) => {
  let els;
  try {
    if (/^[(/]/.test(sel)) {
      const r = document.evaluate(sel, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
      els = Array.from({length: r.snapshotLength}, (_, i) => r.snapshotItem(i));
    } else {
      els = Array.from(document.querySelectorAll(sel));
    }
  } catch (e) { return {error: String(e.message || e)}; }
  const i = index < 0 ? index + els.length : index;
  let el = els[i];
  if (el && el.nodeType === 2) el = el.ownerElement;
  else if (el && el.nodeType !== 1) el = el.parentElement;
  if (!el) return {none: true, count: els.length};
  el.scrollIntoView({block: "center", inline: "center", behavior: "instant"});
  const r = el.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) return {hidden: true};
  const vv = window.visualViewport || {offsetLeft: 0, offsetTop: 0};
  return {x: r.left + r.width / 2 - vv.offsetLeft, y: r.top + r.height / 2 - vv.offsetTop};
})(%s, %d)`

type located struct {
	X, Y   float64
	Error  string
	None   bool
	Count  int
	Hidden bool
}

// locate runs locateJS for the index-th match of selector in the front tab.
func (d *Driver) locate(selector string, index int) chromedp.Action[located] {
	arg, _ := json.Marshal(selector)
	return chromedp.Evaluate[located](fmt.Sprintf(locateJS, arg, index))
}

// onSelector finds the index-th element selector matches in the front tab and runs act at its
// centre.
func (d *Driver) onSelector(ctx context.Context, op, selector string, index int, act func(x, y float64) chromedp.Action[chromedp.Void]) error {
	if strings.TrimSpace(selector) == "" {
		return d.wrap(op, ErrBadSelector, "give a CSS selector (#login, button.primary) or an XPath (//a[text()='Next'])")
	}
	c, done, err := d.tab(ctx)
	if err != nil {
		return err
	}
	defer done()
	var at located
	err = whileNavigating(c, func() (err error) {
		at, err = answered(c, func(c context.Context) (located, error) { return chromedp.Run(c, d.locate(selector, index)) })
		return err
	})
	switch {
	case err != nil:
		return d.inputFailed(op, c, nil, err, hintFor(err))
	case at.Error != "":
		return d.wrap(op, fmt.Errorf("%w %q: %s", ErrBadSelector, selector, at.Error), "CSS selectors as document.querySelector takes them; XPaths start with / or (")
	case at.None && at.Count > 0:
		return d.wrap(op, fmt.Errorf("%w %q at index %d: %s", device.ErrNoElement, selector, index, matching(at.Count)),
			fmt.Sprintf("index counts the matches from 0 in document order, -1 the last: %d..%d or %d..-1", 0, at.Count-1, -at.Count))
	case at.None:
		return d.wrap(op, fmt.Errorf("%w %q", device.ErrNoElement, selector), "peek or get_source to see what the page holds")
	case at.Hidden:
		return d.wrap(op, fmt.Errorf("%w %q%s: it has no box (display: none?)", device.ErrNoElement, selector, atIndex(index)), "")
	}
	c, sent := withSent(c)
	if err := chromedp.Do(c, act(at.X, at.Y)); err != nil {
		return d.inputFailed(op, c, sent, err, inputHint(err))
	}
	return nil
}

// TapSelector taps the first element selector finds, at its centre.
func (d *Driver) TapSelector(ctx context.Context, selector string) error {
	return d.TapSelectorNth(ctx, selector, 0)
}

// TapSelectorNth taps the index-th element selector matches (0 the first, -1 the last), at its
// centre.
func (d *Driver) TapSelectorNth(ctx context.Context, selector string, index int) error {
	return d.onSelector(ctx, "tap by selector", selector, index, func(x, y float64) chromedp.Action[chromedp.Void] {
		return settle(d.press(x, y, 0, 1))
	})
}

// HoverSelector moves the pointer over the first element selector finds.
func (d *Driver) HoverSelector(ctx context.Context, selector string) error {
	return d.HoverSelectorNth(ctx, selector, 0)
}

// HoverSelectorNth moves the pointer over the index-th element selector matches.
func (d *Driver) HoverSelectorNth(ctx context.Context, selector string, index int) error {
	return d.onSelector(ctx, "hover by selector", selector, index, hover)
}

// SecondaryClickSelector right-clicks the first element selector finds.
func (d *Driver) SecondaryClickSelector(ctx context.Context, selector string) error {
	return d.SecondaryClickSelectorNth(ctx, selector, 0)
}

// SecondaryClickSelectorNth right-clicks the index-th element selector matches.
func (d *Driver) SecondaryClickSelectorNth(ctx context.Context, selector string, index int) error {
	return d.onSelector(ctx, "secondary click by selector", selector, index, rightClick)
}

// SecondaryClick right-clicks p (the screenshot's pixels).
func (d *Driver) SecondaryClick(ctx context.Context, p device.Point) error {
	if err := d.onScreen("secondary click", p); err != nil {
		return err
	}
	return d.do(ctx, "secondary click", d.atPixel(p, rightClick))
}

func hover(x, y float64) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		return mouse(ctx, t, input.DispatchMouseEventTypeMouseMoved, x, y, input.MouseButtonNone, 0)
	})
}

func rightClick(x, y float64) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if err := mouse(ctx, t, input.DispatchMouseEventTypeMouseMoved, x, y, input.MouseButtonNone, 0); err != nil {
			return err
		}
		if err := mouse(ctx, t, input.DispatchMouseEventTypeMousePressed, x, y, input.MouseButtonRight, 1); err != nil {
			return err
		}
		return mouse(ctx, t, input.DispatchMouseEventTypeMouseReleased, x, y, input.MouseButtonRight, 1)
	})
}

// CloseTab closes the tab at index among the open tabs, oldest first; the newest remaining
// one is in front after it. With none left, calls that need a page refuse (ErrNoTabOpen)
// until app_launch (or HOME) opens one.
func (d *Driver) CloseTab(ctx context.Context, index int) error {
	pages, err := d.pages(ctx)
	if err != nil {
		return err
	}
	if index < 0 || index >= len(pages) {
		hint := fmt.Sprintf("tabIndex counts the open tabs from 0, oldest first: 0..%d", len(pages)-1)
		if len(pages) == 0 {
			hint = "no tab is open; app_launch opens one"
		}
		return d.wrap("close tab", fmt.Errorf("%w: %d of %d open tabs", ErrNoTab, index, len(pages)), hint)
	}
	id := pages[index].TargetID
	release, err := d.use(ctx)
	if err != nil {
		return err
	}
	defer release()
	bctx, done := bound(ctx, d.browserCtx())
	defer done()
	d.reached(stepClose)
	_, err = chromedp.CallBrowser(bctx, target.CloseTarget, target.CloseTargetParams{TargetID: id})
	if err != nil && browserDied(bctx) { // not a tab closed: the browser, and the next call told twice
		return d.diedUnder(ctx, bctx, stepClose, err, errDiedClosing, "")
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return d.wrap(stepClose, err, "")
	}
	d.mu.Lock()
	delete(d.tabs, id)
	d.opened[id] = -1
	d.mu.Unlock()
	return nil
}
