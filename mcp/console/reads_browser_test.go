package console_test

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/farmtest"
)

// In a browser, a principal whose tools are [home] gets pages that say what its token may not
// read, and whose scripts keep it hidden: the grid's renders keep its line and show no card, the
// device page's renders leave its facts empty (it is given none), its screen says why there is
// none, and its Home button is there.
func TestConsoleHiddenViewsInABrowser(t *testing.T) {
	const homerToken = "homer-token-0123456789abcdef"
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	base := policyGateway(t, f, "principals:\n  - name: homer\n    token: "+homerToken+"\n    tools: [home]\n")
	ctx := startBrowser(t)

	navigate(t, ctx, base+"/?token="+homerToken)
	rendered(t, ctx)
	got := waitFor(t, ctx, 5*time.Second, "the grid", `[document.getElementById('hidden').hidden ? '' : document.getElementById('hidden').textContent,
	  String(document.querySelectorAll('#wall .card').length), String(document.getElementById('empty').hidden)]`, func([]string) bool { return true })
	if !strings.Contains(got[0], "may not call list_available_devices") || got[1] != "0" || got[2] != "true" {
		t.Errorf("homer's grid after a render: hidden line %q, %s cards, 'no device matches' hidden %s", got[0], got[1], got[2])
	}

	navigate(t, ctx, base+"/devices/n1-p1")
	first := waitFor(t, ctx, 15*time.Second, "a render", `document.body.dataset.updated || ''`, func(s string) bool { return s != "" })
	waitFor(t, ctx, 15*time.Second, "another render", `document.body.dataset.updated || ''`, func(s string) bool { return s != first })
	page := waitFor(t, ctx, 5*time.Second, "the device page", `[document.querySelector('h1 [data-f=state]').textContent, document.querySelector('main').dataset.state,
	  document.querySelector('[data-noframe]').textContent, document.querySelector('[data-status-hidden]') ? document.querySelector('[data-status-hidden]').textContent : '',
	  String(!!document.querySelector('button[data-action=home]')), String(!!document.querySelector('.ro'))]`, func([]string) bool { return true })
	if page[0] != "" || page[1] != "" || !strings.Contains(page[2], "may not call screenshot") || !strings.Contains(page[3], "may not call get_device_status") ||
		page[4] != "true" || page[5] != "false" {
		t.Errorf("homer's device page after renders: state %q / %q, screen %q, facts %q, Home button %s, read-only badge %s", page[0], page[1], page[2], page[3], page[4], page[5])
	}
}
