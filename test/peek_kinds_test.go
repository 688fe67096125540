package test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/ios"
	"github.com/corral-farm/corral/nodes/tools"
)

// peekListing is peek's listing of serial's screen, through the front door.
func peekListing(t *testing.T, f *farmtest.Farm, serial string) string {
	t.Helper()
	var r tools.PeekResult
	farmtest.Structured(t, farmtest.MustCall(t, f.Client("peeker"), "peek", args("serial", serial)), &r)
	require.Equal(t, tools.SourceUITree, r.Source, r.Message)
	return r.Listing
}

// hasLine asserts that listing has an element of kind labelled label (a regexp).
func hasLine(t *testing.T, listing, kind, label string) {
	t.Helper()
	re := regexp.MustCompile(`(?m)^e\d+ \[` + kind + `\] "` + label + `" `)
	require.Regexp(t, re, listing, "want [%s] %q in the listing", kind, label)
}

// peek names an iPhone's elements as it names Android's: the sim's Notes field (an
// XCUIElementTypeTextField in WebDriverAgent's source) is an input, its static text is text.
func TestPeekKindsOnIOS(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Platforms: []device.Platform{android.Platform(), ios.Platform()}})
	f.StartIOS("n1", 1)
	waitOnline(t, f, "ios-sim-01")
	c := f.Client("peeker")
	farmtest.MustCall(t, c, "app_launch", args("serial", "ios-sim-01", "packageName", "com.corral.notes"))
	farmtest.MustCall(t, c, "input", args("serial", "ios-sim-01", "text", "héllo"))
	l := peekListing(t, f, "ios-sim-01")
	hasLine(t, l, "input", "héllo")
	hasLine(t, l, "text", "5 characters")
	hasLine(t, l, "button", "Clear")
}

const kindsPage = `<!doctype html><html><head><meta name="viewport" content="width=device-width,initial-scale=1"></head><body>
<h1>Orders</h1><p>Three items</p><div>Loose words</div>
<input placeholder="Search"><textarea placeholder="Note"></textarea>
<button>Buy</button><a href="/more">More</a><div role="button" onclick="void 0">Pay</div>
</body></html>`

// peek names a web page's elements as it names Android's: an <input> or <textarea> is an
// input, a <p>'s words are text, a link or button is a button.
func TestPeekKindsOnTheWeb(t *testing.T) {
	f := webFarm(t, "web-kinds")
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, kindsPage) }))
	t.Cleanup(site.Close)
	farmtest.MustCall(t, f.Client("peeker"), "app_launch", args("serial", "web-kinds", "packageName", site.URL+"/"))
	l := peekListing(t, f, "web-kinds")
	for _, e := range []struct{ kind, label string }{
		{"text", "Orders"}, {"text", "Three items"}, {"text", "Loose words"},
		{"input", "Search"}, {"input", "Note"},
		{"button", "Buy"}, {"button", "More"}, {"button", "Pay"},
	} {
		hasLine(t, l, e.kind, e.label)
	}
}
