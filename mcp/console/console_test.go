package console

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// The grid shows the devices the viewer's tags allow, with the lease expiry and queue of their
// current lease (not of an older one), the running task, and the values each filter can take.
func TestGridOfAViewer(t *testing.T) {
	c := New(Config{Farm: testFarm()})
	sim, _ := authenticate(simToken)
	ctx := context.WithValue(t.Context(), viewerKey{}, sim)
	g := c.grid(ctx, filter{})
	if g.Total != 2 || len(g.Devices) != 2 || g.Devices[0].Serial != "d1" || g.Devices[1].Serial != "d3" {
		t.Fatalf("sim's grid: %+v", g.Devices)
	}
	d1, d3 := g.Devices[0], g.Devices[1]
	if d1.LeaseExpires.IsZero() || d1.LeaseMax.IsZero() || d1.QueueLen == nil || *d1.QueueLen != 2 || d1.Holder != "alice (agent)" {
		t.Errorf("d1: %+v", d1)
	}
	if !d3.LeaseExpires.IsZero() || d3.Task == nil || d3.Task.Tool != "tap_xy" || d3.Task.Holder != "bob" {
		t.Errorf("d3 (its lease in the list is of an older epoch): %+v", d3)
	}
	if !slices.Equal(g.Platforms, []string{"android"}) || !slices.Equal(g.Nodes, []string{"n1", "n2"}) || !slices.Equal(g.Tags, []string{"sim"}) {
		t.Errorf("filter choices: %v %v %v (the lab device must not show in them)", g.Platforms, g.Nodes, g.Tags)
	}
	for _, c2 := range []struct {
		f    filter
		want []string
	}{
		{filter{Node: "n2"}, []string{"d3"}},
		{filter{State: broker.StateLeased}, []string{"d1"}},
		{filter{Platform: "android", Tag: "sim"}, []string{"d1", "d3"}},
		{filter{Tag: "lab"}, nil},
		{filter{Platform: "ios"}, nil},
	} {
		var got []string
		for _, d := range c.grid(ctx, c2.f).Devices {
			got = append(got, d.Serial)
		}
		if !slices.Equal(got, c2.want) {
			t.Errorf("filter %+v: %v, want %v", c2.f, got, c2.want)
		}
	}
	if q := filterOf(url.Values{"platform": {"ios"}, "tag": {"lab"}, "node": {"n2"}, "state": {"online"}}); q != (filter{Platform: "ios", Tag: "lab", Node: "n2", State: "online"}) {
		t.Errorf("filterOf: %+v", q)
	}
}

// Without authentication everyone is anonymous and sees everything; with it, every page and
// data path wants a token, and a token shows only its devices.
func TestConsoleAuth(t *testing.T) {
	open := httptest.NewServer(New(Config{Farm: testFarm()}))
	t.Cleanup(open.Close)
	resp, body := get(t, open, "/", "")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `data-serial="d2"`) || !strings.Contains(body, "anonymous") {
		t.Fatalf("an open console: %d\n%s", resp.StatusCode, body)
	}

	srv, denied := testConsole(t, testFarm(), nil)
	for _, p := range []string{"/", "/devices/d1", "/console/api/devices", "/console/api/devices/d1", "/console/devices/d1/timeline", "/console/frames?serial=d1"} {
		resp, body := get(t, srv, p, "")
		if resp.StatusCode != http.StatusUnauthorized || strings.Contains(body, "data-serial") || strings.Contains(body, `"serial"`) {
			t.Errorf("%s without a token: %d\n%s", p, resp.StatusCode, body)
		}
		// A wrong bearer token is told as such, not as a missing one or an expired login.
		if resp, body := get(t, srv, p, "wrong-token-0123456789"); resp.StatusCode != http.StatusUnauthorized ||
			!strings.Contains(body, "The bearer token of the Authorization header is not valid for this gateway.") ||
			strings.Contains(body, "wrong-token") || strings.Contains(body, "expired") {
			t.Errorf("%s with a wrong token: %d\n%s", p, resp.StatusCode, body)
		}
	}
	if !slices.Contains(*denied, ReasonNoToken) || !slices.Contains(*denied, ReasonBadToken) {
		t.Errorf("refusals counted: %v", *denied)
	}
	if resp, body := get(t, srv, "/", ""); !strings.Contains(body, `name="token"`) || resp.Header.Get("Content-Security-Policy") == "" {
		t.Errorf("the login form, with the security headers: %v\n%s", resp.Header, body)
	}

	// A token shows its devices, and nothing of the others: the same answer as no device.
	resp, body = get(t, srv, "/console/api/devices", labToken)
	var g gridData
	if err := json.Unmarshal([]byte(body), &g); err != nil || len(g.Devices) != 1 || g.Devices[0].Serial != "d2" || g.Viewer != "labber" {
		t.Fatalf("lab's grid: %d %s (%v)", resp.StatusCode, body, err)
	}
	for _, p := range []string{"/devices/d1", "/console/api/devices/d1", "/console/devices/d1/timeline", "/console/frames?serial=d1", "/devices/nope"} {
		if resp, _ := get(t, srv, p, labToken); resp.StatusCode != http.StatusNotFound {
			t.Errorf("lab got %s: %d", p, resp.StatusCode)
		}
	}
	if resp, body := get(t, srv, "/devices/d2", labToken); resp.StatusCode != http.StatusOK || !strings.Contains(body, `data-serial="d2"`) ||
		strings.Contains(body, "read-only") {
		t.Errorf("lab's device page: %d\n%s", resp.StatusCode, body)
	}
	if _, body := get(t, srv, "/", simToken); !strings.Contains(body, "read-only") {
		t.Error("a viewer without tools that act is not told the console is read-only")
	}
}

// ?token= is taken once: an HttpOnly, SameSite=Strict cookie, and a redirect that drops the
// token from the address but keeps the rest; the cookie then stands for the token.
func TestTokenInTheAddressBecomesACookie(t *testing.T) {
	srv, _ := testConsole(t, testFarm(), nil)
	resp, _ := get(t, srv, "/?node=n1&token="+url.QueryEscape(simToken), "")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/?node=n1" {
		t.Fatalf("?token=: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	cookies := resp.Cookies()
	if len(cookies) != 1 || cookies[0].Name != cookieName || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode ||
		strings.Contains(cookies[0].Value, simToken) {
		t.Fatalf("cookie %+v", cookies)
	}
	withCookie := func(path string) (*http.Response, string) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+path, nil)
		req.AddCookie(cookies[0])
		return do(t, req)
	}
	if resp, body := withCookie("/console/api/devices"); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"d3"`) || strings.Contains(body, `"d2"`) {
		t.Fatalf("with the cookie: %d %s", resp.StatusCode, body)
	}
	if resp, _ := get(t, srv, "/?token=wrong-token-0123456789", ""); resp.StatusCode != http.StatusUnauthorized || slices.ContainsFunc(resp.Cookies(), isToken) {
		t.Fatalf("a wrong ?token=: %d, cookies %v", resp.StatusCode, resp.Cookies())
	}

	// The login form: a token, and where to go next (this site only), with the form's CSRF
	// token and the session cookie it goes with.
	session, csrf := loginForm(t, srv)
	post := func(path string, form url.Values) *http.Response {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(session)
		resp, _ := do(t, req)
		return resp
	}
	if resp := post("/console/login", url.Values{"token": {labToken}, "next": {"/devices/d2"}, "csrf": {csrf}}); resp.StatusCode != http.StatusSeeOther ||
		resp.Header.Get("Location") != "/devices/d2" || len(resp.Cookies()) != 1 {
		t.Fatalf("login: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp := post("/console/login", url.Values{"token": {labToken}, "next": {"//evil.example/x"}, "csrf": {csrf}}); resp.Header.Get("Location") != "/" {
		t.Fatalf("login sent the browser to %q", resp.Header.Get("Location"))
	}
	if resp := post("/console/login", url.Values{"token": {"nope-nope-nope-nope"}, "csrf": {csrf}}); resp.StatusCode != http.StatusUnauthorized || len(resp.Cookies()) != 0 {
		t.Fatalf("a wrong login: %d", resp.StatusCode)
	}
	for _, bad := range []string{"", "not-the-token"} {
		if resp := post("/console/login", url.Values{"token": {labToken}, "csrf": {bad}}); resp.StatusCode != http.StatusForbidden || len(resp.Cookies()) != 0 {
			t.Fatalf("a login with CSRF token %q: %d %v", bad, resp.StatusCode, resp.Cookies())
		}
	}
	if resp := post("/console/logout", nil); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a logout without the CSRF token: %d", resp.StatusCode)
	}
	resp = post("/console/logout", url.Values{"csrf": {csrf}})
	if c := resp.Cookies(); resp.StatusCode != http.StatusSeeOther || len(c) != 1 || c[0].MaxAge >= 0 {
		t.Fatalf("logout: %d %v", resp.StatusCode, c)
	}
}

func isToken(c *http.Cookie) bool { return c.Name == cookieName }

// loginForm opens the login form: its session cookie and CSRF token.
func loginForm(t *testing.T, srv *httptest.Server) (*http.Cookie, string) {
	t.Helper()
	resp, body := get(t, srv, "/", "")
	i := slices.IndexFunc(resp.Cookies(), func(c *http.Cookie) bool { return c.Name == sessionCookie })
	_, csrf, _ := strings.Cut(body, `name="csrf" value="`)
	csrf, _, _ = strings.Cut(csrf, `"`)
	if i < 0 || csrf == "" || !resp.Cookies()[i].HttpOnly || resp.Cookies()[i].SameSite != http.SameSiteStrictMode {
		t.Fatalf("the login form's session cookie %v and CSRF token %q", resp.Cookies(), csrf)
	}
	return resp.Cookies()[i], csrf
}

func TestLocalPath(t *testing.T) {
	for in, want := range map[string]string{
		"/": "/", "/devices/a%2Fb": "/devices/a%2Fb", "/?node=n1": "/?node=n1", "": "/", "devices": "/",
		"//evil.example": "/", "/\\evil.example": "/", "https://evil.example/": "/", "javascript:alert(1)": "/",
	} {
		if got := localPath(in); got != want {
			t.Errorf("localPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// The grid's JSON carries an ETag: asked again with it, an unchanged grid is a 304, and a long
// poll (?wait=1) answers as soon as the registry changes.
func TestGridLongPoll(t *testing.T) {
	farm := testFarm()
	srv, _ := testConsole(t, farm, nil)
	resp, _ := get(t, srv, "/console/api/devices", simToken)
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != http.StatusOK || etag == "" {
		t.Fatalf("%d, ETag %q", resp.StatusCode, etag)
	}
	if resp, _ := get(t, srv, "/console/api/devices", simToken, "If-None-Match", etag); resp.StatusCode != http.StatusNotModified {
		t.Fatalf("unchanged: %d", resp.StatusCode)
	}
	go func() {
		time.Sleep(100 * time.Millisecond) // the poll is waiting by then, or sees the change at once
		farm.set("d1", func(d *broker.DeviceEntry) { d.State, d.Holder = broker.StateOnline, "" })
	}()
	start := time.Now()
	resp, body := get(t, srv, "/console/api/devices?wait=1", simToken, "If-None-Match", etag)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"serial":"d1"`) || strings.Contains(body, `"alice (agent)"`) {
		t.Fatalf("long poll: %d %s", resp.StatusCode, body)
	}
	if waited := time.Since(start); waited > longPoll/2 {
		t.Fatalf("the long poll answered after %s", waited)
	}
}

// Many pages polling share one leases request a second; a failed request keeps what the last
// one said.
func TestLeasesFetchedOnceForAll(t *testing.T) {
	farm := testFarm()
	c := New(Config{Farm: farm})
	ctx := context.WithValue(t.Context(), viewerKey{}, Anonymous)
	for range 20 {
		c.grid(ctx, filter{})
	}
	farm.mu.Lock()
	calls := farm.calls
	farm.err = context.DeadlineExceeded
	farm.mu.Unlock()
	if calls != 1 {
		t.Fatalf("%d leases requests for 20 grids within a second", calls)
	}
	c.leases.mu.Lock()
	c.leases.ttl = 0 // what a second would do
	c.leases.mu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for {
		g := c.grid(ctx, filter{})
		if g.LeasesError != "" {
			if q := g.Devices[0].QueueLen; q == nil || *q != 2 {
				t.Fatalf("the leases known before the failure were dropped: %+v", g.Devices[0])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the failed leases request never showed")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
