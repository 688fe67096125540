package web

import (
	"context"
	"slices"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// A browser's tabs: the newest open one is in front, and the tools act on it.

// bound returns a context of tab that ends when ctx does: actions run in it, and cancelling
// it does not close the tab.
func bound(ctx, tab context.Context) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancel(tab)
	stop := context.AfterFunc(ctx, cancel)
	return c, func() { stop(); cancel() }
}

// pages lists the open tabs, oldest first.
func (d *Driver) pages(ctx context.Context) ([]*target.Info, error) {
	release, err := d.use(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	bctx, done := bound(ctx, d.browserCtx())
	defer done()
	all, err := chromedp.Targets(bctx)
	if err != nil && browserDied(bctx) {
		return nil, d.listDied(ctx, bctx, err)
	}
	if err != nil {
		return nil, d.wrap("list tabs", err, "")
	}
	out, excess := d.order(all)
	if len(excess) > 0 {
		d.log.Warn("a page opened more tabs than a browser device keeps; the newest were closed", "closed", len(excess), "kept", maxTabs)
		for _, t := range excess {
			_, _ = chromedp.CallBrowser(bctx, target.CloseTarget, target.CloseTargetParams{TargetID: t.TargetID})
		}
	}
	return out, nil
}

// maxTabs is how many tabs a browser device keeps open: a page that opens more (a hundred
// window.open calls in one click) has the newest closed.
const maxTabs = 10

// order returns the open tabs of all, oldest first, and those past maxTabs, which it marks
// closed.
func (d *Driver) order(all []*target.Info) (open, excess []*target.Info) {
	d.mu.Lock()
	defer d.mu.Unlock()
	listed := map[target.ID]bool{}
	for _, t := range all {
		if t.Type != "page" {
			continue
		}
		listed[t.TargetID] = true
		if t.URL != "" {
			if d.lastURL == nil {
				d.lastURL = map[target.ID]string{}
			}
			d.lastURL[t.TargetID] = t.URL
		}
		seq, ok := d.opened[t.TargetID]
		if !ok {
			d.seen++
			seq = d.seen
			d.opened[t.TargetID] = seq
		}
		if seq >= 0 { // a closed tab may be listed a little longer
			open = append(open, t)
		}
	}
	for id := range d.opened {
		if !listed[id] {
			delete(d.opened, id)
			delete(d.lastURL, id)
			delete(d.committed, id)
		}
	}
	slices.SortFunc(open, func(a, b *target.Info) int { return d.opened[a.TargetID] - d.opened[b.TargetID] })
	if len(open) > maxTabs {
		open, excess = open[:maxTabs], open[maxTabs:]
		for _, t := range excess {
			d.opened[t.TargetID] = -1
			delete(d.tabs, t.TargetID)
		}
	}
	return open, excess
}

// tab returns the context of the tab in front (the newest), attaching to it first if needed;
// with no tab open (the last one closed) it refuses with ErrNoTabOpen: a look or a tap at
// nothing must not quietly open a page. The browser is in use until done is called.
func (d *Driver) tab(ctx context.Context) (c context.Context, done context.CancelFunc, err error) {
	release, err := d.use(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			release()
		}
	}()
	tctx, _, err := d.frontTab(ctx, false)
	if err != nil {
		return nil, nil, err
	}
	c, unbound := bound(ctx, tctx)
	return c, func() { unbound(); release() }, nil
}

// ErrNoTabOpen answers a call that needs a page while no tab is open (the last one closed).
var ErrNoTabOpen = mistake("no tab is open")

// noTabHint says how to open a tab again.
const noTabHint = "app_launch a URL to open one (press_button HOME opens the home page)"

// frontTab is the context of the tab in front; see tab. With none open, open opens one at
// home (opened says so); otherwise it refuses.
func (d *Driver) frontTab(ctx context.Context, open bool) (tab context.Context, opened bool, err error) {
	pages, err := d.pages(ctx)
	if err != nil {
		return nil, false, err
	}
	if len(pages) == 0 && !open {
		return nil, false, d.wrap("find the front tab", ErrNoTabOpen, noTabHint)
	}
	if len(pages) == 0 {
		tctx, _ := chromedp.NewContext(d.browserCtx()) // closed with the browser
		d.reached(stepOpen)
		if err := d.attach(ctx, tctx, d.emulate(), chromedp.Navigate(d.home)); err != nil {
			if browserDied(tctx) {
				return nil, false, d.diedUnder(ctx, tctx, stepOpen, err, diedBefore("opened a tab"), ", then repeat the call")
			}
			return nil, false, d.wrap(stepOpen, err, "")
		}
		d.answerDialogs(tctx)
		d.followCommits(tctx)
		id := chromedp.FromContext(tctx).Target.TargetID
		d.mu.Lock()
		d.tabs[id] = tctx
		d.seen++
		d.opened[id] = d.seen
		d.mu.Unlock()
		if err := d.activate(ctx, id); err != nil {
			return nil, false, err
		}
		return tctx, true, nil
	}
	front := pages[len(pages)-1].TargetID
	d.mu.Lock()
	tctx, ok := d.tabs[front]
	d.mu.Unlock()
	if !ok {
		if tctx, err = d.takeOver(ctx, front); err != nil {
			return nil, false, d.wrap("take over a tab", err, hintFor(err))
		}
	}
	if err := d.activate(ctx, front); err != nil {
		return nil, false, err
	}
	return tctx, false, nil
}

// activate brings tab id to the front once it is the newest: a headless browser renders (and
// captures screenshots of) only the tab in front. One whose browser dies meanwhile says so
// (died.go).
func (d *Driver) activate(ctx context.Context, id target.ID) error {
	d.mu.Lock()
	same := d.front == id
	d.mu.Unlock()
	if same {
		return nil
	}
	d.mu.Lock()
	tctx := d.tabs[id]
	d.mu.Unlock()
	c, done := bound(ctx, tctx)
	defer done()
	d.reached(stepFront)
	if _, err := answered(c, func(c context.Context) (cdp.Empty, error) {
		return chromedp.Call(c, page.BringToFront, cdp.Empty{})
	}); err != nil {
		if browserDied(tctx) {
			return d.diedUnder(ctx, tctx, stepFront, err, diedBefore("brought its tab to the front"), ", then repeat the call")
		}
		return d.wrap(stepFront, err, inputHint(err))
	}
	d.mu.Lock()
	d.front = id
	d.mu.Unlock()
	return nil
}

// attach runs the first steps of a new tab context: in tab itself, since chromedp keeps a
// tab attached as long as the context of its first run, and waiting no longer than ctx.
func (d *Driver) attach(ctx, tab context.Context, steps ...chromedp.Action[chromedp.Void]) error {
	ran := make(chan error, 1)
	go func() { ran <- chromedp.Do(tab, steps...) }()
	select {
	case err := <-ran:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// do runs steps in the tab in front, again while the tab is between two pages; op names them
// in errors. With no tab open it refuses (tab).
func (d *Driver) do(ctx context.Context, op string, steps ...chromedp.Action[chromedp.Void]) error {
	c, done, err := d.tab(ctx)
	if err != nil {
		return err
	}
	defer done()
	c, sent := withSent(c)
	if err := whileNavigating(c, func() error { return chromedp.Do(c, steps...) }); err != nil {
		return d.inputFailed(op, c, sent, err, inputHint(err))
	}
	return nil
}

// navigate opens url in the tab in front, opening a tab first if none is open. One that
// fails leaves the device as it was (undoNavigation).
func (d *Driver) navigate(ctx context.Context, op, url string) error {
	release, err := d.use(ctx)
	if err != nil {
		return err
	}
	defer release()
	tctx, opened, err := d.frontTab(ctx, true)
	if err != nil {
		return err
	}
	c, done := bound(ctx, tctx)
	defer done()
	var was int64
	if !opened {
		was = shownEntry(c)
	}
	err = whileNavigating(c, func() error { return chromedp.Do(c, chromedp.Navigate(url)) })
	if err == nil {
		return nil
	}
	if browserDied(tctx) { // nothing to undo (navfail.go)
		return d.diedUnder(ctx, tctx, op, err, errDiedLoading, "")
	}
	err, stopped := aborted(ctx, err)
	err, late := timedOut(ctx, err)
	undone := d.undoNavigation(ctx, tctx, opened, was)
	switch {
	case late && undone:
		return d.wrap(op, err, "the device is as it was: "+notLoadedHint)
	case late:
		return d.wrap(op, err, notLoadedHint+"; list_packages shows the tabs open")
	case stopped && undone:
		return d.wrap(op, err, "the device is as it was, and the URL was not at fault: app_launch it again")
	case stopped:
		return d.wrap(op, err, "the URL was not at fault: app_launch it again; list_packages shows the tabs open")
	case undone:
		return d.wrap(op, err, "the device is as it was: check the URL, and that the site answers")
	}
	return d.wrap(op, err, "check the URL, and that the site answers; list_packages shows the tabs open")
}
