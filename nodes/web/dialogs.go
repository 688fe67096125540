package web

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// A page's JavaScript dialog (alert, confirm, prompt, beforeunload) stalls the page until it
// is answered, and with it every command sent to the tab: a device left with one open answers
// nothing until its deadlines pass. So each tab answers its dialogs as they open, as a careful
// user would (alert: OK; confirm and prompt: Cancel; beforeunload: leave the page), and the
// device keeps what they said for the next tool's answer (TakeDialogs).

// maxDialogs bounds the dialogs kept between two calls: a page may alert in a loop.
const maxDialogs = 5

// answerDialogs makes tab answer its dialogs for as long as it lives. tab must be attached.
func (d *Driver) answerDialogs(tab context.Context) {
	err := chromedp.Listen(tab, func(ev any) {
		e, ok := ev.(*page.EventJavascriptDialogOpening)
		if !ok {
			return
		}
		accept, said := dialogAnswer(e.Type)
		d.noteDialog(fmt.Sprintf("the page's %s dialog said: %q (%s)", e.Type, e.Message, said))
		go func() { // chromedp's reading goroutine must not wait for an answer
			if _, err := chromedp.Call(tab, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: accept}); err != nil {
				d.log.Warn("answering a page's dialog failed", "type", e.Type, "err", err)
			}
		}()
	})
	if err != nil {
		d.log.Warn("cannot watch a tab for dialogs; one would stall the page", "err", err)
	}
}

// dialogAnswer is how a dialog of type t is answered, and the words for it.
func dialogAnswer(t page.DialogType) (accept bool, said string) {
	switch t {
	case page.DialogTypeAlert:
		return true, "dismissed with OK"
	case page.DialogTypeBeforeunload:
		return true, "left the page"
	default: // confirm, prompt: nothing the page asks is agreed to
		return false, "dismissed with Cancel"
	}
}

// noteDialog keeps what a dialog said for the next call's answer.
func (d *Driver) noteDialog(s string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.dialogs) < maxDialogs {
		d.dialogs = append(d.dialogs, s)
	}
}

// TakeDialogs returns what the dialogs answered since the last call said, and forgets them.
func (d *Driver) TakeDialogs() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := d.dialogs
	d.dialogs = nil
	return out
}
