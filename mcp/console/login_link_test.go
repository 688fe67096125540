package console

import (
	"html"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// A ?token= link another site's page sends the browser to logs nothing in (login CSRF): the
// console answers 403 with the login form saying to open the link directly, sets no token
// cookie and shows no token. Typed, pasted or bookmarked (none), from the console itself
// (same-origin), or from a client that sends no Sec-Fetch-Site (curl), it logs in.
func TestTokenLinkFromAnotherSiteLogsNothingIn(t *testing.T) {
	srv, _ := testConsole(t, testFarm(), nil)
	link := "/devices/d1?token=" + url.QueryEscape(simToken)
	for _, site := range []string{"cross-site", "same-site"} {
		resp, body := get(t, srv, link, "", "Sec-Fetch-Site", site)
		if resp.StatusCode != http.StatusForbidden || slices.ContainsFunc(resp.Cookies(), isToken) {
			t.Errorf("a ?token= link from %s: %d, cookies %v", site, resp.StatusCode, resp.Cookies())
		}
		if !strings.Contains(html.UnescapeString(body), "paste the link into the address bar") || !strings.Contains(body, `name="token"`) ||
			strings.Contains(body, simToken) || strings.Contains(body, `data-serial`) {
			t.Errorf("a ?token= link from %s: the page should say to open the link directly, with the login form and no token:\n%s", site, body)
		}
	}
	for _, site := range []string{"none", "same-origin", ""} {
		resp, _ := get(t, srv, link, "", "Sec-Fetch-Site", site)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/devices/d1" || !slices.ContainsFunc(resp.Cookies(), isToken) {
			t.Errorf("a ?token= link with Sec-Fetch-Site %q: %d to %q, cookies %v", site, resp.StatusCode, resp.Header.Get("Location"), resp.Cookies())
		}
	}
}
