package console

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/corral-farm/corral/broker"
)

// fakeActions records the calls the console makes and answers as a test says. The console's
// actions through the real front door are tested in test/console_actions_test.go.
type fakeActions struct {
	mu     sync.Mutex
	calls  []string // "viewer tool args"
	answer func(tool string, args map[string]any) Answer
}

func (f *fakeActions) Serves(tool string) bool { return tool != "swipe_coordinate" }

// Supports: iOS has no back, as nodes/ios says.
func (f *fakeActions) Supports(platform, tool string) bool {
	return platform != "ios" || tool != "back"
}

func (f *fakeActions) Call(_ context.Context, v Viewer, tool string, args map[string]any) Answer {
	b, _ := json.Marshal(args)
	f.mu.Lock()
	f.calls = append(f.calls, v.Name+" "+tool+" "+string(b))
	f.mu.Unlock()
	if f.answer != nil {
		return f.answer(tool, args)
	}
	return Answer{OK: true, Message: tool + " done"}
}

func (f *fakeActions) ForceRelease(_ context.Context, v Viewer, serial string) Answer {
	return f.Call(context.Background(), v, "force", map[string]any{"serial": serial})
}

func (f *fakeActions) taken() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.calls
	f.calls = nil
	return out
}

// browserSession is a browser's console session: its cookies, and the CSRF token of its pages.
type browserSession struct {
	srv     *httptest.Server
	cookies map[string]*http.Cookie
	csrf    string
}

// openSession logs in with token and opens path.
func openSession(t *testing.T, srv *httptest.Server, token, path string) *browserSession {
	t.Helper()
	s := &browserSession{srv: srv, cookies: map[string]*http.Cookie{}}
	resp, _ := get(t, srv, path+"?token="+url.QueryEscape(token), "")
	s.keep(resp)
	resp, body := s.do(t, http.MethodGet, path, "")
	_, csrf, _ := strings.Cut(body, `<meta name="corral-csrf" content="`)
	s.csrf, _, _ = strings.Cut(csrf, `"`)
	if resp.StatusCode != http.StatusOK || s.csrf == "" {
		t.Fatalf("%s: %d, CSRF token %q", path, resp.StatusCode, s.csrf)
	}
	return s
}

func (s *browserSession) keep(resp *http.Response) {
	for _, c := range resp.Cookies() {
		if c.MaxAge < 0 {
			delete(s.cookies, c.Name)
		} else {
			s.cookies[c.Name] = c
		}
	}
}

func (s *browserSession) do(t *testing.T, method, path, body string, header ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), method, s.srv.URL+path, strings.NewReader(body))
	for _, c := range s.cookies {
		req.AddCookie(c)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, text := do(t, req)
	s.keep(resp)
	return resp, text
}

// act posts an action with the page's token: its status and answer.
func (s *browserSession) act(t *testing.T, serial, action, body string, header ...string) (int, actionAnswer) {
	t.Helper()
	resp, text := s.do(t, http.MethodPost, "/console/devices/"+serial+"/actions/"+action, body, append([]string{csrfHeader, s.csrf}, header...)...)
	var a actionAnswer
	if err := json.Unmarshal([]byte(text), &a); err != nil {
		t.Fatalf("%s: %d %s", action, resp.StatusCode, text)
	}
	return resp.StatusCode, a
}

func actionsConsole(t *testing.T, farm *fakeFarm, acts *fakeActions) (*httptest.Server, *Metrics) {
	t.Helper()
	m := NewMetrics(prometheus.NewRegistry())
	srv := httptest.NewServer(New(Config{Farm: farm, Authenticate: authenticate, Named: named, Actions: acts, Metrics: m}))
	t.Cleanup(srv.Close)
	return srv, m
}

// An action needs the page's CSRF token and must not come from another site; then it is the
// tool's call, with the device and the arguments checked; nothing else reaches the front door.
func TestActionsNeedThePagesToken(t *testing.T) {
	acts := &fakeActions{}
	srv, m := actionsConsole(t, testFarm(), acts)
	s := openSession(t, srv, labToken, "/devices/d2")
	wrong := "x" // one character changed: never to itself (the token's 11th may be an x)
	if s.csrf[10] == 'x' {
		wrong = "y"
	}
	for name, h := range map[string][]string{
		"no token":          {csrfHeader, ""},
		"a wrong token":     {csrfHeader, s.csrf[:10] + wrong + s.csrf[11:]},
		"another site":      {"Sec-Fetch-Site", "cross-site"},
		"another port":      {"Sec-Fetch-Site", "same-site"},
		"another session's": {csrfHeader, deriveKeys(nil).csrfToken("another-session-id-0123", "labber")},
	} {
		if status, a := s.act(t, "d2", "tap", `{"x":0.5,"y":0.5}`, h...); status != http.StatusForbidden || a.OK || a.Message == "" {
			t.Errorf("%s: %d %+v", name, status, a)
		}
	}
	for body, status := range map[string]int{`{"x":0.5}`: 400, `{"x":0.5,"y":-0.1}`: 400, `{"x":0.5,"y":0.5,"text":"a"}`: 400, `[1]`: 400, `{"x":1,"y":0}`: 200} {
		if got, a := s.act(t, "d2", "tap", body); got != status {
			t.Errorf("tap %s: %d %+v, want %d", body, got, a, status)
		}
	}
	if status, _ := s.act(t, "d1", "tap", `{"x":0.5,"y":0.5}`); status != http.StatusNotFound {
		t.Errorf("lab tapped sim's d1: %d", status)
	}
	if status, _ := s.act(t, "d2", "swipe", `{"from_x":0,"from_y":0,"to_x":1,"to_y":1}`); status != http.StatusNotImplemented {
		t.Errorf("a swipe on a gateway without swipe_coordinate: %d", status)
	}
	if status, _ := s.act(t, "d2", "reboot", ``); status != http.StatusNotFound {
		t.Errorf("an unknown action: %d", status)
	}
	if resp, _ := s.do(t, http.MethodGet, "/console/devices/d2/actions/tap", ""); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET of an action: %d", resp.StatusCode)
	}
	if calls := acts.taken(); !slices.Equal(calls, []string{`labber tap_xy {"serial":"d2","x":1,"y":0}`}) {
		t.Errorf("calls: %q", calls)
	}
	for outcome, want := range map[string]float64{refusedCSRF: 3, refusedCrossSite: 2, outcomeBadRequest: 4, outcomeSucceeded: 1} {
		if got := testutil.ToFloat64(m.actions.WithLabelValues("tap", outcome)); got != want {
			t.Errorf("corral_console_actions_total{action=tap,outcome=%s} = %v, want %v", outcome, got, want)
		}
	}
}

// The lease a session acquires is kept in its cookie: its actions carry it, its page says it
// holds the device while the node's lease is that one, release gives it back, and a session
// logged in as another principal does not use it. The handle never reaches the page.
func TestActionsHoldTheSessionsLease(t *testing.T) {
	const handle = "lease_0123456789abcdef0123456789abcdef"
	farm := testFarm()
	acts := &fakeActions{answer: func(tool string, _ map[string]any) Answer {
		switch tool {
		case "acquire_device":
			farm.mu.Lock()
			farm.leases = append(farm.leases, broker.Lease{Serial: "d2", Node: "n2", HandleSHA256: broker.HandleHash(handle)})
			farm.mu.Unlock()
			return Answer{OK: true, Message: "Leased device d2: pass lease " + handle,
				Data: json.RawMessage(`{"lease":{"handle":"` + handle + `","serial":"d2","expires_at":"2030-01-01T00:00:00Z","max_until":"2030-01-01T01:00:00Z"}}`)}
		case "release_device":
			farm.mu.Lock()
			farm.leases = farm.leases[:len(farm.leases)-1]
			farm.mu.Unlock()
		}
		return Answer{OK: true, Message: tool + " done"}
	}}
	srv, _ := actionsConsole(t, farm, acts)
	s := openSession(t, srv, labToken, "/devices/d2")
	status, a := s.act(t, "d2", "acquire", "")
	if status != http.StatusOK || a.Held == nil || !*a.Held || strings.Contains(a.Message, handle) {
		t.Fatalf("acquire: %d %+v", status, a)
	}
	if _, body := s.do(t, http.MethodGet, "/console/api/devices/d2?tasks=0", ""); !strings.Contains(body, `"held":true`) || strings.Contains(body, handle) {
		t.Errorf("the device's JSON: %s", body)
	}
	if _, body := s.do(t, http.MethodGet, "/devices/d2", ""); !strings.Contains(body, `data-held="true"`) || strings.Contains(body, handle) {
		t.Errorf("the device page does not show the hold, or shows the handle")
	}
	s.act(t, "d2", "tap", `{"x":0.25,"y":0.75}`)
	other := openSession(t, srv, labToken, "/devices/d2") // another browser: no lease
	other.act(t, "d2", "home", "")
	if status, a := other.act(t, "d2", "release", ""); status != http.StatusConflict || a.OK {
		t.Errorf("a release by a session that holds nothing: %d %+v", status, a)
	}
	status, a = s.act(t, "d2", "release", "")
	if status != http.StatusOK || a.Held == nil || *a.Held {
		t.Errorf("release: %d %+v", status, a)
	}
	if _, ok := s.cookies[heldName("d2")]; ok {
		t.Error("the lease's cookie outlived its release")
	}
	want := []string{
		`labber acquire_device {"serial":"d2"}`,
		`labber tap_xy {"lease":"` + handle + `","serial":"d2","x":0.25,"y":0.75}`,
		`labber home {"serial":"d2"}`,
		`labber release_device {"lease":"` + handle + `","serial":"d2"}`,
	}
	if calls := acts.taken(); !slices.Equal(calls, want) {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(calls, "\n"), strings.Join(want, "\n"))
	}

	// A cookie of another principal's is not used.
	c := New(Config{Farm: farm})
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	keep := httptest.NewRecorder()
	c.keepHeld(keep, r, Viewer{Name: "simmer"}, heldLease{Principal: "simmer", Serial: "d2", Handle: handle})
	r.AddCookie(keep.Result().Cookies()[0])
	if h := c.heldHandle(r, Viewer{Name: "labber"}, "d2"); h != "" {
		t.Errorf("labber used simmer's lease: %q", h)
	}
	if h := c.heldHandle(r, Viewer{Name: "simmer"}, "d2"); h != handle {
		t.Errorf("simmer's own lease: %q", h)
	}
}

// The device page shows the actions the viewer's tools allow, the gateway serves and the
// device's platform can do; force release to operators whose tools include abort_task (it
// aborts the running task) only; none to a viewer without tools that act, or without Actions.
func TestControlsFollowTheViewersRights(t *testing.T) {
	c := New(Config{Farm: testFarm(), Actions: &fakeActions{}})
	for _, tc := range []struct {
		v    Viewer
		want string
	}{
		{Anonymous, "abort acquire back force_release home release tap type"},
		{Viewer{Name: "ro", MayCall: func(string) bool { return false }}, ""},
		{Viewer{Name: "tapper", MayCall: func(tool string) bool { return tool == "tap_xy" || tool == "acquire_device" }}, "acquire tap"},
		{Viewer{Name: "ops", MayCall: func(tool string) bool { return tool == "abort_task" }, Operator: true}, "abort force_release"},
		{Viewer{Name: "opro", MayCall: func(string) bool { return false }, Operator: true}, ""},
	} {
		if got := c.controls(tc.v, "android").List(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.v.Name, got, tc.want)
		}
	}
	// Finding 5: a control the device's platform cannot do is not shown (an iPhone has no Back).
	if got := c.controls(Anonymous, "ios").List(); got != "abort acquire force_release home release tap type" {
		t.Errorf("an iPhone's controls: %q", got)
	}
	if New(Config{Farm: testFarm()}).controls(Anonymous, "android").Any() {
		t.Error("a console without Actions offers actions")
	}
}

// A page's CSRF token is its session's and its viewer's, under the farm's key: another
// session, another principal, the page before a login and another farm each give another.
func TestCSRFTokenOfSessionAndToken(t *testing.T) {
	k := deriveKeys([]byte("farm key"))
	a := k.csrfToken("session-a-0123456789abcdef", "alice")
	for _, other := range []string{k.csrfToken("session-b-0123456789abcdef", "alice"), k.csrfToken("session-a-0123456789abcdef", "bob"),
		k.csrfToken("session-a-0123456789abcdef", ""), deriveKeys([]byte("another farm")).csrfToken("session-a-0123456789abcdef", "alice")} {
		if other == a {
			t.Fatal("two sessions, principals or farms share a CSRF token")
		}
	}
	if a != deriveKeys([]byte("farm key")).csrfToken("session-a-0123456789abcdef", "alice") {
		t.Fatal("the CSRF token is not stable, or not the same on every gateway of the farm")
	}
}

// The body of an action never panics its decoder, and what it accepts is within the screen.
func FuzzActionBody(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"x":0.5,"y":0.5}`, `{"from_x":0,"from_y":1,"to_x":0.5,"to_y":0.5,"duration":0.3}`,
		`{"text":"héllo"}`, `{"x":1e309}`, `{"x":-0}`, `{"duration":11}`, `{"x":0.5,"y":0.5}{}`, `{"x":"0.5"}`, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		b, err := decodeActionBody(strings.NewReader(body))
		if err != nil {
			return
		}
		for _, build := range []func(actionBody) (map[string]any, error){tapArgs, swipeArgs, typeArgs} {
			args, err := build(b)
			if err != nil {
				continue
			}
			for k, v := range args {
				if f, ok := v.(float64); ok && k != "duration" && !(f >= 0 && f <= 1) {
					t.Fatalf("%s accepted as %v", k, f)
				}
			}
		}
	})
}

// A lease cookie's value never panics its parser, and what it accepts names a lease.
func FuzzHeldCookie(f *testing.F) {
	k := deriveKeys([]byte("farm key"))
	f.Add(k.sealHeld(heldLease{Principal: "p", Serial: "s", Handle: "h"}))
	f.Add("e30")
	f.Add("!!")
	f.Fuzz(func(t *testing.T, value string) {
		if h, ok := k.openHeld(heldName("s"), value); ok && (h.Principal == "" || h.Serial != "s" || h.Handle == "") {
			t.Fatalf("accepted %+v", h)
		}
	})
}
