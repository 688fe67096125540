package steps

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/chromium"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/web"
)

// QA: expect on a browser's blank page said "the UI tree holds no text (a game, a canvas or a
// camera view draws its text as pixels ...)", which sent the user looking for a canvas. A page
// that lists no element is blank or not loaded yet: the failure says so, with its URL when the
// gateway serves get_foreground_app, and to wait or check the URL. A phone's screen without
// text is still a game's or a canvas's.
func TestExpectOnABlankPage(t *testing.T) {
	if _, err := chromium.Find(); err != nil {
		t.Skipf("no Chromium for the browser device: %v", err)
	}
	empty := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := ""
		if r.URL.Path == "/field" {
			body = "<input>" // an element, with neither text nor a label
		}
		_, _ = w.Write([]byte("<!doctype html><html><body>" + body + "</body></html>"))
	}))
	t.Cleanup(empty.Close)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true, Platforms: []device.Platform{android.Platform(), web.Platform()}})
	browser, err := web.Start(t.Context(), web.Options{Serial: "web-01"})
	if err != nil {
		t.Fatal(err)
	}
	f.AddDriver("n1", browser)
	farmtest.Eventually(t, 30*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device("web-01")
		return ok && d.State == broker.StateOnline
	}, "web-01 online")
	c := f.Client("steps-test")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	list, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := NewCatalog(list.Tools)
	if err != nil {
		t.Fatal(err)
	}
	// A gateway that serves no get_foreground_app (--tools httprunner) tells no URL.
	noURL, err := NewCatalog(slices.DeleteFunc(slices.Clone(list.Tools), func(tl mcpgo.Tool) bool { return tl.Name == toolForeground }))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, doc string
		cat       *Catalog
		want      string // the error ends so
	}{
		{"about:blank", "- {method: home, serial: web-01, expect: Welcome, expect_timeout: 0.3}\n", cat,
			"not there after 0.3 s: the page is blank (about:blank): no page is open yet; open it first (app_launch with its URL), " +
				"or check the URL the steps open"},
		{"an empty page", "- {method: app_launch, params: " + empty.URL + ", serial: web-01, expect: Welcome, expect_timeout: 0.3}\n", cat,
			"not there after 0.3 s: the page at " + empty.URL + "/ shows no text yet (its UI tree lists no element): it may still be loading " +
				"(a longer expect_timeout waits for it), or it is not the page meant: check the URL"},
		{"a page of a field alone", "- {method: app_launch, params: " + empty.URL + "/field, serial: web-01, expect: Welcome, expect_timeout: 0.3}\n", cat,
			"not there after 0.3 s: the page at " + empty.URL + "/field shows no text yet (none of its elements has text or a label): " +
				"it may still be loading (a longer expect_timeout waits for it), or it is not the page meant: check the URL"},
		{"no URL", "- {method: home, serial: web-01, expect: Welcome, expect_timeout: 0.3}\n", noURL,
			"not there after 0.3 s: the page shows no text yet: its UI tree lists no element at all, as a browser's blank page (about:blank) " +
				"or one still loading does: wait longer (expect_timeout), or check the URL the steps opened"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewPlan(mustParse(t, tc.doc), tc.cat, Options{})
			if err != nil {
				t.Fatal(err)
			}
			s := p.Run(t.Context(), c).Steps[0]
			if !s.ExpectFailed || !strings.HasSuffix(s.Error, tc.want) {
				t.Errorf("%+v\nwant an error ending %s", s, tc.want)
			}
		})
	}
}
