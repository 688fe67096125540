package test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/chromium"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/tools"
	"github.com/corral-farm/corral/nodes/web"
)

// needChromium skips the test without a headless Chromium, or fails it under
// CORRAL_REQUIRE_TOOLS (make setup installs one).
func needChromium(t *testing.T) {
	t.Helper()
	if _, err := chromium.Find(); err != nil {
		tool(t, chromium.Names[0])
	}
}

// webFarm is a farm of one node with a simulated phone and a browser device (phone profile)
// called serial, online.
func webFarm(t *testing.T, serial string) *farmtest.Farm {
	t.Helper()
	needChromium(t)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Platforms: []device.Platform{android.Platform(), web.Platform()}})
	phone, _ := web.ProfileNamed("phone")
	d, err := web.Start(t.Context(), web.Options{Serial: serial, Profile: phone})
	require.NoError(t, err)
	f.AddDriver("n1", d)
	waitOnline(t, f, serial)
	return f
}

// webPage records what it saw by posting each event to /log: the test asserts on the page's
// own account.
const webPage = `<!doctype html><html><head><meta name="viewport" content="width=device-width,initial-scale=1">
<style>body{margin:0} .b{position:absolute;left:20px;width:200px;height:60px}</style></head><body>
<button class="b" id="buy" style="top:20px">Buy</button>
<div class="b" id="help" style="top:100px">Help</div>
<div class="b" id="row" style="top:180px">Row</div>
<input class="b" id="q" style="top:260px" placeholder="Search">
<a class="b" id="more" href="/more" target="_blank" style="top:340px">More</a>
<script>
for (const t of ["click", "contextmenu", "input"])
  addEventListener(t, e => navigator.sendBeacon("/log", JSON.stringify({type: t, id: e.target.id || "", value: e.target.value || ""})), true);
document.getElementById("help").addEventListener("mouseover", e => navigator.sendBeacon("/log", JSON.stringify({type: "mouseover", id: "help"})));
</script></body></html>`

type webEvent struct{ Type, ID, Value string }

// webSite serves webPage at / (and a page at /more) and collects the events the pages post.
func webSite(t *testing.T) (url string, saw func(typ, id string) int) {
	var mu sync.Mutex
	var events []webEvent
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, webPage) })
	mux.HandleFunc("/more", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `<!doctype html><p>More</p>`) })
	mux.HandleFunc("POST /log", func(w http.ResponseWriter, r *http.Request) {
		var e webEvent
		if json.NewDecoder(r.Body).Decode(&e) == nil {
			mu.Lock()
			events = append(events, e)
			mu.Unlock()
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL, func(typ, id string) int { // how many times
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, e := range events {
			if e.Type == typ && (e.ID == id || e.Value == id) {
				n++
			}
		}
		return n
	}
}

// A browser device of `corral up --sim-web 1` through the front door: HttpRunner's web tools
// and the catalog's own act on the page, as the page itself records.
func TestWebDeviceThroughTheFrontDoor(t *testing.T) {
	needChromium(t)
	site, saw := webSite(t)
	url := corralUp(t, "--sim", "0", "--adb", "off", "--sim-web", "1", "--web-max", "3")
	const serial = "web-01"
	farmtest.Eventually(t, 60*time.Second, func() bool {
		out, err := runCorral(t, "devices", "--gateway", url)
		return err == nil && strings.Contains(out, serial) && strings.Contains(out, "online")
	}, "the browser device online")
	call := func(tool string, args map[string]any) (string, error) {
		args["serial"] = serial
		b, _ := json.Marshal(args)
		return runCorral(t, "call", "--gateway", url, tool, string(b))
	}
	must := func(tool string, args map[string]any) string {
		out, err := call(tool, args)
		require.NoError(t, err, "%s: %s", tool, out)
		return out
	}
	waitSaw := func(typ, id string, times int) {
		farmtest.Eventually(t, 10*time.Second, func() bool { return saw(typ, id) >= times },
			fmt.Sprintf("the page saw %s on %s %d times", typ, id, times))
	}

	must("app_launch", map[string]any{"packageName": site + "/"})
	must("tap_by_selector", map[string]any{"selector": "#buy"})
	waitSaw("click", "buy", 1)
	must("hover_by_selector", map[string]any{"selector": "//div[@id='help']"})
	waitSaw("mouseover", "help", 1)
	must("secondary_click_by_selector", map[string]any{"selector": "#row"})
	waitSaw("contextmenu", "row", 1)
	// Row's centre: (120, 210) CSS pixels of 390×844, as relative coordinates.
	must("secondary_click", map[string]any{"x": 120.0 / 390, "y": 210.0 / 844})
	waitSaw("contextmenu", "row", 2)
	must("tap_xy", map[string]any{"x": 120.0 / 390, "y": 290.0 / 844}) // the search field
	must("input", map[string]any{"text": "boots"})
	waitSaw("input", "boots", 1)

	out := must("screenshot", map[string]any{})
	assert.Contains(t, out, "1170", "a phone profile's screenshot is 1170×2532 device pixels")
	out = must("get_source", map[string]any{})
	assert.Contains(t, out, `resource-id=\"buy\"`)

	// No match: an error, unless ignore_NotFoundError.
	out, err := call("tap_by_selector", map[string]any{"selector": "#missing"})
	require.Error(t, err, out)
	assert.Contains(t, out, "no element matches the selector")
	out = must("tap_by_selector", map[string]any{"selector": "#missing", "ignore_NotFoundError": true})
	assert.Contains(t, out, "ignored")
	out, err = call("app_launch", map[string]any{"packageName": "file:///etc/passwd"})
	require.Error(t, err, out)
	assert.Contains(t, out, "http:// and https://")

	// Tabs: More opens one in front; closing it brings back the first.
	must("tap_by_selector", map[string]any{"selector": "#more"})
	farmtest.Eventually(t, 10*time.Second, func() bool {
		out, err := call("get_foreground_app", map[string]any{})
		return err == nil && strings.Contains(out, "/more")
	}, "the new tab in front")
	must("web_close_tab", map[string]any{"tabIndex": 1})
	out = must("get_foreground_app", map[string]any{})
	assert.NotContains(t, out, "/more")
	out, err = call("web_close_tab", map[string]any{"tabIndex": 5})
	require.Error(t, err, out)
	assert.Contains(t, out, "no such tab")

	// --web-max 3: three agents at once each get a browser of their own, two of them started
	// at their first use.
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := map[string]bool{}
	for _, who := range []string{"agent-1", "agent-2", "agent-3"} {
		wg.Go(func() {
			c := mcpClient(t.Context(), t, url, who)
			res := farmtest.Call(t, c, "acquire_device", args("platform", "web", "wait_seconds", 30))
			if !assert.False(t, res.IsError, farmtest.Text(res)) {
				return
			}
			var l struct {
				Lease struct{ Handle, Serial string }
			}
			farmtest.Structured(t, res, &l)
			mu.Lock()
			got[l.Lease.Serial] = true
			mu.Unlock()
			res = farmtest.Call(t, c, "app_launch", args("serial", l.Lease.Serial, "lease", l.Lease.Handle, "packageName", site+"/?"+who))
			assert.False(t, res.IsError, farmtest.Text(res))
			res = farmtest.Call(t, c, "tap_by_selector", args("serial", l.Lease.Serial, "lease", l.Lease.Handle, "selector", "#buy"))
			assert.False(t, res.IsError, farmtest.Text(res))
		})
	}
	wg.Wait()
	assert.Len(t, got, 3, "three agents, three browsers: %v", got)
}

// Cookies and storage never pass from one holder to the next: a lease's end gets the browser
// device a fresh profile before anyone else's task runs on it.
func TestWebDeviceIsFreshForEachHolder(t *testing.T) {
	var mu sync.Mutex
	var reports []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/saw" {
			mu.Lock()
			reports = append(reports, r.URL.Query().Get("c"))
			mu.Unlock()
			return
		}
		fmt.Fprint(w, `<!doctype html><script>
fetch("/saw?c=" + encodeURIComponent(document.cookie + "|" + (localStorage.getItem("k") || "")));
document.cookie = "who=" + location.hash.slice(1) + "; max-age=3600"; localStorage.setItem("k", location.hash.slice(1));
</script>`)
	}))
	t.Cleanup(srv.Close)
	f := webFarm(t, "web-fresh")

	visit := func(c *client.Client, lease, who string) string {
		mu.Lock()
		n := len(reports)
		mu.Unlock()
		farmtest.MustCall(t, c, "app_launch", args("serial", "web-fresh", "lease", lease, "packageName", srv.URL+"/#"+who))
		farmtest.MustCall(t, c, "press_button", args("serial", "web-fresh", "lease", lease, "button", "HOME"))
		farmtest.MustCall(t, c, "app_launch", args("serial", "web-fresh", "lease", lease, "packageName", srv.URL+"/#"+who))
		farmtest.Eventually(t, 10*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return len(reports) >= n+2 }, "the page's reports")
		mu.Lock()
		defer mu.Unlock()
		return reports[n+1] // what the second load found
	}
	a, b := f.Client("holder-a"), f.Client("holder-b")
	la := leaseOf(t, farmtest.MustCall(t, a, "acquire_device", args("serial", "web-fresh")))
	assert.Equal(t, "who=alice|alice", visit(a, la, "alice"), "within a lease the page keeps its cookie and storage")
	farmtest.MustCall(t, a, "release_device", args("lease", la))
	lb := leaseOf(t, farmtest.MustCall(t, b, "acquire_device", args("serial", "web-fresh")))
	mu.Lock()
	n := len(reports)
	mu.Unlock()
	farmtest.MustCall(t, b, "app_launch", args("serial", "web-fresh", "lease", lb, "packageName", srv.URL+"/#bob"))
	farmtest.Eventually(t, 10*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return len(reports) > n }, "the page's report")
	mu.Lock()
	assert.Equal(t, "|", reports[n], "the next holder's page found the last holder's cookie or storage")
	mu.Unlock()
	mib := deviceGauge(t, f, "web-fresh", "memory_mib")
	assert.True(t, mib > 10 && mib < 4000, "corral_device_reading memory_mib of a browser device: %g", mib)
}

// web_login_none_ui logs a browser device in through the site's login endpoint, without its
// login page: the session cookie the endpoint sets is the browser's, as the site's own page
// then sees; a wrong password is an error that does not repeat it.
func TestWebLoginNoneUI(t *testing.T) {
	var mu sync.Mutex
	var whoami []string
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/login", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ PhoneNumber, Password string }
		_ = json.NewDecoder(r.Body).Decode(&in)
		if in.Password != "s3cret-pass" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":"bad password %s"}`, in.Password) // an endpoint that echoes it
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "for-" + in.PhoneNumber, Path: "/"})
		fmt.Fprint(w, `{"user":"`+in.PhoneNumber+`"}`)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie("session"); err == nil && r.URL.Path == "/me" {
			mu.Lock()
			whoami = append(whoami, c.Value)
			mu.Unlock()
		}
		fmt.Fprint(w, `<!doctype html><p>shop</p>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	f := webFarm(t, "web-login")
	c := f.Client("shopper")

	res := farmtest.Call(t, c, "web_login_none_ui", args("serial", "web-login", "packageName", srv.URL+"/api/login",
		"phoneNumber", "13800000000", "password", "wrong-pass"))
	require.True(t, res.IsError, farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "HTTP 401")
	assert.NotContains(t, farmtest.Text(res), "wrong-pass")

	res = farmtest.MustCall(t, c, "web_login_none_ui", args("serial", "web-login", "packageName", srv.URL+"/api/login",
		"phoneNumber", "13800000000", "password", "s3cret-pass"))
	var got tools.LoginResult
	farmtest.Structured(t, res, &got)
	assert.True(t, got.LoginResult.OK, "%+v", got)
	assert.Equal(t, map[string]any{"user": "13800000000"}, got.LoginResult.Body)
	farmtest.MustCall(t, c, "app_launch", args("serial", "web-login", "packageName", srv.URL+"/me"))
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"for-13800000000"}, whoami, "the site's page did not see the session")
}
