package web

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// A tab between two pages lists an empty URL, and its history names the entry it is on its
// way to, not the page it shows: a failed launch of a page whose script hangs is undone by
// going back to about:blank, which never comes, and the tab was listed at about:blank while
// it showed the page. So each tab's last committed URL is kept from its events (followCommits):
// the page it shows until another one replaces it.

// followCommits keeps the URL of the last page tab's main frame committed to (a same-document
// navigation too) in d.committed, for as long as the tab lives. tab must be attached.
func (d *Driver) followCommits(tab context.Context) {
	id := chromedp.FromContext(tab).Target.TargetID
	var main cdp.FrameID // the main frame, as its first commit names it (the listener runs on one goroutine)
	keep := func(url string) {
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.committed == nil {
			d.committed = map[target.ID]string{}
		}
		d.committed[id] = url
	}
	err := chromedp.Listen(tab, func(ev any) {
		switch ev := ev.(type) {
		case *page.EventFrameNavigated:
			if ev.Frame.ParentID == "" {
				main = ev.Frame.ID
				keep(ev.Frame.URL + ev.Frame.URLFragment)
			}
		case *page.EventNavigatedWithinDocument:
			if ev.FrameID == main {
				keep(ev.URL)
			}
		}
	})
	if err != nil {
		d.log.Warn("cannot follow a tab's pages; one stuck between two pages may be listed at an older URL", "err", err)
	}
}

// committedTo is the URL of the last page tab id committed to, as its events said; "" when
// none was seen.
func (d *Driver) committedTo(id target.ID) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.committed[id]
}
