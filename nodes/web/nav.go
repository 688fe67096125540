package web

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// A tap on a link (or a key that submits a form) sends the tab elsewhere. Until the next page
// has come, the tab answers commands with "Not attached to an active page" and lists an empty
// URL, so an input that starts a navigation waits for it (settle), and a command that meets
// one anyway is tried again once it has passed (do).

// navigationWait bounds how long an input waits for the page it led to: a slow page is not
// the input's failure, and the next call waits for it again if it must.
const navigationWait = 10 * time.Second

// requestGrace is how long a navigation the page asked for may take to start: the browser
// may still drop it (a beforeunload handler, a download).
const requestGrace = time.Second

// aFrameJS resolves after the page's next frame (or a tenth of a second, should frames not run).
const aFrameJS = `new Promise(r => { requestAnimationFrame(() => setTimeout(r)); setTimeout(r, 100); })`

// settle runs steps and, when they send the tab's page elsewhere, waits until the next page
// has loaded (or the navigation ended some other way), or navigationWait, or ctx.
func settle(steps ...chromedp.Action[chromedp.Void]) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		tree, err := answered(ctx, func(c context.Context) (page.GetFrameTreeResult, error) {
			return cdp.Call(c, t, page.GetFrameTree, cdp.Empty{})
		})
		if err != nil {
			return err
		}
		main := tree.FrameTree.Frame.ID
		n := newNavWatch()
		lctx, stop := context.WithCancel(ctx)
		defer stop()
		if err := chromedp.Listen(lctx, func(ev any) { n.see(main, ev) }); err != nil {
			return err
		}
		if err := chromedp.Do(ctx, steps...); err != nil {
			return err
		}
		if !n.asked() {
			// A touch's click comes from the gesture the browser makes of it, which can reach
			// the page after the touch's answer: give the page a frame to act on it first.
			fctx, cancel := context.WithTimeout(ctx, requestGrace) // a page whose script hangs
			_, err := chromedp.Evaluate[chromedp.Void](aFrameJS, chromedp.EvalAwaitPromise)(fctx, t)
			cancel()
			if err != nil && !navigating(err) {
				return nil // the input was sent; a page that cannot run a frame is not its failure
			}
			if !n.asked() {
				return nil
			}
		}
		started := n.started
		timer := time.NewTimer(navigationWait)
		defer timer.Stop()
		grace := time.NewTimer(requestGrace)
		defer grace.Stop()
		for {
			select {
			case <-n.done:
				return nil
			case <-started:
				started = nil // from now on, wait for done
			case <-grace.C:
				if started != nil { // what the page asked for never started
					return nil
				}
			case <-timer.C:
				return nil
			case <-ctx.Done():
				return nil // the input was sent; the page is still on its way
			}
		}
	})
}

// navWatch follows the navigations of a tab's main frame from the events chromedp.Listen
// hands it: started closes when one begins, done when it has ended.
type navWatch struct {
	mu                sync.Mutex
	requested, begun  bool
	started, done     chan struct{}
	closeStart, close func()
}

func newNavWatch() *navWatch {
	n := &navWatch{started: make(chan struct{}), done: make(chan struct{})}
	var s, d sync.Once
	n.closeStart = func() { s.Do(func() { close(n.started) }) }
	n.close = func() { d.Do(func() { close(n.done) }) }
	return n
}

// see takes one event of the tab (on chromedp's reading goroutine: it must not block).
func (n *navWatch) see(main cdp.FrameID, ev any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch ev := ev.(type) {
	case *page.EventFrameRequestedNavigation:
		if ev.FrameID == main && ev.Disposition == page.ClientNavigationDispositionCurrentTab {
			n.requested = true
		}
	case *page.EventFrameStartedNavigating:
		if ev.FrameID != main {
			return
		}
		switch ev.NavigationType {
		case page.FrameStartedNavigatingNavigationTypeSameDocument, page.FrameStartedNavigatingNavigationTypeHistorySameDocument:
			n.close() // a fragment: the page stays
		default:
			n.begun = true
			n.closeStart()
		}
	case *page.EventNavigatedWithinDocument:
		if ev.FrameID == main {
			n.close()
		}
	case *page.EventFrameStoppedLoading:
		if ev.FrameID == main && n.begun { // committed and loaded, or dropped (204, a download)
			n.close()
		}
	}
}

// asked says whether the page asked for a navigation, or one began.
func (n *navWatch) asked() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.requested || n.begun
}

// ErrNavigating says the tab was between two pages for longer than the call could wait.
var ErrNavigating = errors.New("the tab was on its way to another page and did not get there in time")

// betweenPages are the words of the tab's answers while its page is being replaced.
var betweenPages = []string{"Not attached to an active page", "Execution context was destroyed",
	"Cannot find default execution context", "Inspected target navigated or closed"}

// navigating reports whether err is the tab's answer while its page is being replaced.
func navigating(err error) bool {
	var ce *cdproto.Error
	if !errors.As(err, &ce) {
		return false
	}
	for _, w := range betweenPages {
		if strings.Contains(ce.Message, w) {
			return true
		}
	}
	return false
}

// retryGap is the pause before a command that met a navigation is tried again.
const retryGap = 50 * time.Millisecond

// whileNavigating runs f, and again while it fails because the tab is between two pages or
// its page did not answer (noanswer.go; once more only), as long as ctx allows; what it
// finally returns says so in words, also when ctx ended a try (not "context canceled").
func whileNavigating(ctx context.Context, f func() error) error {
	var met error // ErrNavigating or ErrNoAnswer, once a try met one
	for {
		err := f()
		switch {
		case err == nil:
			return nil
		case errors.Is(err, ErrInputSent):
			return err // the page may yet act on it: a second try could tap twice
		case navigating(err):
			met = ErrNavigating
		case errors.Is(err, ErrNoAnswer) && errors.Is(met, ErrNoAnswer):
			return err // twice: a page that reloads without end is never captured
		case errors.Is(err, ErrNoAnswer):
			met = err
		case met != nil && ctx.Err() != nil:
			return met
		default:
			return err
		}
		if wait(ctx, retryGap) != nil {
			return met
		}
	}
}

// settleWait bounds how long a listing of the tabs waits for one between two pages: a page
// that reloads itself without end, or whose script hangs as the next page comes, stays there.
const settleWait = 2 * time.Second

// settledPages lists the open tabs, oldest first, once none is between two pages (a tab
// whose next page has answered but not yet replaced the last one lists an empty URL), or
// when settleWait or ctx ends: a tab still between two pages is then listed at the last URL
// it showed (a new tab that showed none yet, at about:blank, as a browser shows it).
func (d *Driver) settledPages(ctx context.Context) ([]*target.Info, error) {
	wctx, cancel := context.WithTimeout(ctx, settleWait)
	defer cancel()
	for {
		pages, err := d.pages(ctx)
		if err != nil || !slices.ContainsFunc(pages, func(p *target.Info) bool { return p.URL == "" }) {
			return pages, err
		}
		if wait(wctx, retryGap) != nil {
			return d.lastKnown(ctx, pages), nil
		}
	}
}

// lastKnown is pages with each empty URL replaced by the URL of the last page its tab
// committed to (committed.go), or else the one its history shows (a tab followed only since
// it was taken over), or else the last URL it was listed at.
func (d *Driver) lastKnown(ctx context.Context, pages []*target.Info) []*target.Info {
	out := make([]*target.Info, len(pages))
	for i, p := range pages {
		if p.URL == "" {
			c := *p
			if c.URL = d.committedTo(p.TargetID); c.URL == "" {
				c.URL = d.committedURL(ctx, p.TargetID)
			}
			d.mu.Lock()
			c.URL = cmp.Or(c.URL, d.lastURL[p.TargetID], "about:blank")
			d.mu.Unlock()
			p = &c
		}
		out[i] = p
	}
	return out
}

// committedURL is the URL of the history entry tab id shows; "" when it cannot tell.
func (d *Driver) committedURL(ctx context.Context, id target.ID) string {
	d.mu.Lock()
	tctx := d.tabs[id]
	d.mu.Unlock()
	if tctx == nil {
		return ""
	}
	c, done := bound(ctx, tctx)
	defer done()
	h, err := answered(c, func(c context.Context) (page.GetNavigationHistoryResult, error) {
		return chromedp.Call(c, page.GetNavigationHistory, cdp.Empty{})
	})
	if err != nil || h.CurrentIndex < 0 || h.CurrentIndex >= int64(len(h.Entries)) {
		return ""
	}
	return h.Entries[h.CurrentIndex].URL
}
