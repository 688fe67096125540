package test

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes/sim"
)

// Issue 17, phase 1: the device wall in a real browser over a real farm (NATS with its users'
// permissions, as deployed). The grid lists the simulated phones with their states; a lease
// taken through MCP shows its holder within a second; live screens arrive (images of the
// phones' shape) and stop being captured once no page shows them; the device page shows a
// larger screen, the lease and the task timeline; no capture overlapped a task.
func TestConsoleWall(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 3, Quiet: true, Auth: true})
	base := f.Gateway().HTTP.URL
	// Asked before anyone watches: the test's own call must not overlap the console's captures.
	size, err := f.Phone("n1-p1").ScreenSize(t.Context())
	require.NoError(t, err)
	ctx := consoleBrowser(t)

	all := []string{"n1-p1 online —", "n1-p2 online —", "n1-p3 online —", "n2-p1 online —", "n2-p2 online —", "n2-p3 online —"}
	browse(t, ctx, chromedp.Navigate(base+"/"))
	waitPage(t, ctx, 10*time.Second, "the grid lists the six phones, online", cardsJS, func(v []string) bool { return slices.Equal(v, all) })

	// A lease taken through MCP shows in the grid within a second of its answer.
	agent := f.Client("console-test")
	lease := leaseOf(t, farmtest.MustCall(t, agent, "acquire_device", args("serial", "n1-p2")))
	taken := time.Now()
	waitPage(t, ctx, time.Second, "n1-p2 shows its holder", cardsJS, func(v []string) bool {
		return len(v) == 6 && v[1] == "n1-p2 leased anonymous (console-test)"
	})
	t.Logf("the lease showed in the grid %s after acquire_device answered", time.Since(taken).Round(time.Millisecond))
	waitPage(t, ctx, 5*time.Second, "n1-p2's lease expiry", `document.querySelector('[data-serial="n1-p2"] [data-f=lease]').textContent`,
		func(s string) bool { return strings.HasPrefix(s, "in ") })

	// Live screens: each card's image has loaded, with the phone's shape.
	for _, serial := range []string{"n1-p1", "n2-p3"} {
		wh := waitPage(t, ctx, pageWait, serial+"'s live screen", screenJS(serial), func(v []int) bool { return len(v) == 2 })
		assert.Equal(t, 360, wh[0], "a grid frame's width")
		assert.InDelta(t, float64(size.Width)/float64(size.Height), float64(wh[0])/float64(wh[1]), 0.01, "%s: frame %v of a %v screen", serial, wh, size)
	}
	n1Frames := `corral_console_frames_total{node="n1"}`
	farmtest.Eventually(t, 10*time.Second, func() bool { return scrape(t, base, n1Frames) >= 3 }, "n1 captures frames")
	farmtest.Eventually(t, 10*time.Second, func() bool {
		return scrape(t, base, "corral_console_watchers") == 1 && scrape(t, base, "corral_console_feeds") == 6
	}, "one page, one stream, six devices watched")
	saveDoc(t, ctx, "console-grid.png")

	// Filters by query string: node n2 only.
	browse(t, ctx, chromedp.Navigate(base+"/?node=n2"))
	waitPage(t, ctx, 10*time.Second, "only n2's phones", cardsJS, func(v []string) bool { return slices.Equal(v, all[3:]) })

	// The device page: a larger screen, the lease, and the tasks run meanwhile in its timeline,
	// newest first, with their outcomes. The tasks run while the screen is captured four times
	// a second: captures go between them, never alongside.
	browse(t, ctx, chromedp.Navigate(base+"/devices/n1-p2"))
	wh := waitPage(t, ctx, pageWait, "the device page's live screen", screenJS("n1-p2"), func(v []int) bool { return len(v) == 2 && v[0] == 720 })
	assert.InDelta(t, float64(size.Width)/float64(size.Height), float64(wh[0])/float64(wh[1]), 0.01, "frame %v", wh)
	before := evalPage[int](t, ctx, seqJS)
	for range 10 {
		farmtest.MustCall(t, agent, "tap_xy", args("serial", "n1-p2", "lease", lease, "x", 0.5, "y", 0.5))
	}
	f.Phone("n1-p2").FailNext(nil) // the phone's own failure: a caller's mistake would be refused
	res := farmtest.Call(t, agent, "app_launch", args("serial", "n1-p2", "lease", lease, "packageName", "com.corral.clock"))
	require.True(t, res.IsError, farmtest.Text(res))
	rows := waitPage(t, ctx, 10*time.Second, "the timeline shows the tasks",
		`[...document.querySelectorAll('#timeline tr[data-task]')].map(r => r.children[1].textContent + ' ' + r.dataset.outcome)`,
		func(v []string) bool { return len(v) == 11 })
	assert.Equal(t, []string{"app_launch failed", "tap_xy succeeded"}, rows[:2], "newest first")
	waitPage(t, ctx, 5*time.Second, "the device's holder", `document.querySelector('main [data-f=holder]').textContent`,
		func(s string) bool { return s == "anonymous (console-test)" })
	waitPage(t, ctx, 10*time.Second, "frames after the tasks", seqJS, func(seq int) bool { return seq > before })
	saveDoc(t, ctx, "console-device.png")

	// About to leave (beforeunload), the page closes its stream before the next page loads;
	// should it stay after all, the user's next touch opens it again.
	evalPage[bool](t, ctx, `window.dispatchEvent(new Event('beforeunload'))`)
	farmtest.Eventually(t, 10*time.Second, func() bool { return scrape(t, base, "corral_console_watchers") == 0 }, "the stream closed at beforeunload")
	before = evalPage[int](t, ctx, seqJS)
	evalPage[bool](t, ctx, `window.dispatchEvent(new Event('pointerdown'))`)
	farmtest.Eventually(t, 10*time.Second, func() bool { return scrape(t, base, "corral_console_watchers") == 1 }, "the stream open again at the next touch")
	waitPage(t, ctx, 10*time.Second, "frames after the touch", seqJS, func(seq int) bool { return seq > before })

	// The page closes: nothing is watched, no node captures any more.
	browse(t, ctx, chromedp.Navigate("about:blank"))
	farmtest.Eventually(t, 10*time.Second, func() bool {
		return scrape(t, base, "corral_console_watchers") == 0 && scrape(t, base, "corral_console_feeds") == 0 &&
			scrape(t, base, `corral_console_watched_devices{node="n1"}`) == 0 && scrape(t, base, `corral_console_watched_devices{node="n2"}`) == 0
	}, "the watches to end")
	frames := scrape(t, base, n1Frames) + scrape(t, base, `corral_console_frames_total{node="n2"}`)
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		require.Equal(t, frames, scrape(t, base, n1Frames)+scrape(t, base, `corral_console_frames_total{node="n2"}`), "frames captured with no one watching")
	}
	for _, p := range f.Phones() {
		assert.Zero(t, p.Overlaps(), "%s: a capture overlapped a task", p.Info().Serial)
	}
}

const (
	readerToken = "reader-token-5e6f7a8b9c0d1e2f"
	labToken    = "lab-token-0f1e2d3c4b5a6978"
)

// Principals of the console's policy: reader sees the sim phones, read-only; lab sees the lab's.
const consolePolicy = `principals:
  - name: reader
    token: ` + readerToken + `
    tags: [sim]
    tools: [readonly]
  - name: lab
    token: ` + labToken + `
    tags: [lab]
`

// The console takes the gateway's tokens, and shows each principal only the devices its tag
// rule allows; without a token, or with a wrong one, it shows nothing but the login form.
func TestConsoleAuthAndTags(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Quiet: true})
	f.AddDriver("n1", taggedPhone{Phone: sim.New("lab-1"), tags: []string{"lab"}})
	waitOnline(t, f, "lab-1")
	c, base := consoleGateway(t, f)
	farmtest.Eventually(t, 10*time.Second, func() bool { return len(c.Devices()) == 4 }, "the gateway sees the 4 phones")

	// Without a token, or with a wrong one: the login form, or 401, and no device.
	for _, p := range []string{"/", "/devices/n1-p1", "/console/api/devices", "/console/api/devices/n1-p1", "/console/devices/n1-p1/timeline",
		"/console/frames?serial=n1-p1"} {
		for _, token := range []string{"", "not-a-token-of-this-gateway"} {
			status, body := getAs(t, base+p, token)
			assert.Equal(t, http.StatusUnauthorized, status, "%s with token %q", p, token)
			assert.NotContains(t, body, "data-serial", "%s showed a device", p)
			assert.NotContains(t, body, `"serial"`, "%s showed a device", p)
		}
	}
	status, body := getAs(t, base+"/?token=not-a-token-of-this-gateway", "")
	assert.Equal(t, http.StatusUnauthorized, status)
	assert.Contains(t, body, "That token is not valid")

	// Each principal sees its tags' devices only, and nothing of the others.
	assert.Equal(t, []string{"n1-p1", "n1-p2", "n1-p3"}, consoleSerials(t, base, readerToken))
	assert.Equal(t, []string{"lab-1"}, consoleSerials(t, base, labToken))
	for _, p := range []string{"/devices/n1-p1", "/console/api/devices/n1-p1", "/console/devices/n1-p1/timeline", "/console/frames?serial=n1-p1"} {
		status, _ := getAs(t, base+p, labToken)
		assert.Equal(t, http.StatusNotFound, status, "lab reached %s", p)
	}
	status, body = getAs(t, base+"/console/api/devices/lab-1", labToken)
	assert.Equal(t, http.StatusOK, status, body)

	// In a browser: ?token= logs in once (an HttpOnly cookie, and the token leaves the address).
	ctx := consoleBrowser(t)
	browse(t, ctx, chromedp.Navigate(base+"/?token="+readerToken))
	waitPage(t, ctx, 10*time.Second, "reader's grid", cardsJS, func(v []string) bool {
		return slices.Equal(v, []string{"n1-p1 online —", "n1-p2 online —", "n1-p3 online —"})
	})
	assert.Equal(t, "/", evalPage[string](t, ctx, `location.pathname + location.search`), "the token stayed in the address")
	assert.NotContains(t, evalPage[string](t, ctx, `document.cookie`), "corral_console", "a script can read the token's cookie")
	assert.Equal(t, "read-only", evalPage[string](t, ctx, `document.querySelector('header .ro')?.textContent || ''`))
	waitPage(t, ctx, pageWait, "reader's live screen", screenJS("n1-p1"), func(v []int) bool { return len(v) == 2 })

	// Logging out shows the login form; logging in as lab shows lab's device only.
	evalPage[bool](t, ctx, `document.querySelector('header form button').click() || true`)
	waitPage(t, ctx, 10*time.Second, "the login form", `!!document.querySelector('main.login input[name=token]')`, func(b bool) bool { return b })
	saveDoc(t, ctx, "console-login.png")
	evalPage[bool](t, ctx, fmt.Sprintf(`(() => {
  document.querySelector('input[name=token]').value = %q;
  document.querySelector('main.login form').requestSubmit();
  return true;
})()`, labToken))
	waitPage(t, ctx, 10*time.Second, "lab's grid", cardsJS, func(v []string) bool { return slices.Equal(v, []string{"lab-1 online —"}) })
	browse(t, ctx, chromedp.Navigate(base+"/devices/n1-p1"))
	waitPage(t, ctx, 10*time.Second, "no n1-p1 for lab", `document.querySelector('main.notfound h1')?.textContent || ''`,
		func(s string) bool { return s == "No device n1-p1" })
	assert.Positive(t, scrapeDenied(t, base), "console refusals counted")
}

// consoleGateway serves a gateway over f with consolePolicy; it returns the gateway's farm
// client and its base URL.
func consoleGateway(t *testing.T, f *farmtest.Farm) (*broker.Client, string) {
	t.Helper()
	c, url := gatewayWithPolicy(t, f, consolePolicy, mcp.Options{})
	return c, strings.TrimSuffix(url, "/mcp")
}

// scrapeDenied sums the gateway's token refusals.
func scrapeDenied(t *testing.T, base string) float64 {
	t.Helper()
	var sum float64
	for _, r := range []string{"no_token", "bad_token"} {
		sum += scrape(t, base, fmt.Sprintf(`corral_gateway_denied_total{reason=%q}`, r))
	}
	if math.IsNaN(sum) {
		return 0
	}
	return sum
}
