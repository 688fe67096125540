package console_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/corral-farm/corral/internal/chromium"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/ios"
)

// The console's pages in headless Chromium over a real farm (as test/console_test.go, whose
// helpers these follow).

// browserTZ is the browser's time zone: not UTC, so that local times show.
const browserTZ = "Asia/Kathmandu"

// startBrowser starts a headless Chromium in browserTZ; without Chromium the test is skipped,
// or fails under CORRAL_REQUIRE_TOOLS.
func startBrowser(t *testing.T) context.Context {
	t.Helper()
	path, err := chromium.Find()
	if err != nil {
		if os.Getenv("CORRAL_REQUIRE_TOOLS") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.WindowSize(1280, 800),
		chromedp.Env("TZ="+browserTZ))
	if os.Geteuid() == 0 { // Chromium's sandbox refuses to run as root
		opts = append(opts, chromedp.NoSandbox)
	}
	for try := 1; ; try++ { // Chromium has died at start-up on a loaded machine
		actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
		t.Cleanup(cancel)
		ctx, cancel := chromedp.NewContext(actx)
		t.Cleanup(cancel)
		err := chromedp.Do(ctx)
		if err == nil {
			return ctx
		}
		if try == 2 || !chromium.DiedAtStart(err) {
			t.Fatal(err)
		}
	}
}

// navigate opens url in the browser.
func navigate(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(rctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
}

// waitFor evaluates expr every 20 ms until ok accepts its value (an exception counts as not
// yet), and returns it; the test fails after timeout.
func waitFor[T any](t *testing.T, ctx context.Context, timeout time.Duration, what, expr string, ok func(T) bool) T {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ectx, cancel := context.WithTimeout(ctx, 5*time.Second)
		v, err := chromedp.Run(ectx, chromedp.Evaluate[T](expr))
		cancel()
		if err == nil && ok(v) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s (last: %+v, %v)", timeout, what, v, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// rendered waits until the page's script has rendered data from the gateway (body's
// data-updated is set at each render; a page as served has none).
func rendered(t *testing.T, ctx context.Context) {
	t.Helper()
	waitFor(t, ctx, 15*time.Second, "a render", `document.body.dataset.updated || ''`, func(s string) bool { return s != "" })
}

// Findings 3 to 6 in a browser: a filter for a value no device has now holds; the device page
// says when the gateway does not answer, and stops saying it when it answers again; an iPhone's
// page shows no Back; a busy refusal says who holds the device until when, in local time, with
// advice a person can follow.
func TestConsolePagesInABrowser(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Quiet: true, Platforms: []device.Platform{android.Platform(), ios.Platform()}})
	f.StartIOS("n1", 1)
	f.WaitDevices(3, "online")
	link := farmtest.StartLink(t, strings.TrimPrefix(f.Gateway().HTTP.URL, "http://"))
	base := "http://" + link.Addr()
	ctx := startBrowser(t)

	// 3: ?node=nope and ?tag=wifi hold through the page's refreshes.
	for _, q := range []string{"node=nope", "tag=wifi", "node=n1&state=leased"} {
		navigate(t, ctx, base+"/?"+q)
		rendered(t, ctx) // the first poll read the filters from the form
		got := waitFor(t, ctx, 5*time.Second, "the grid", `[location.search, [...new FormData(document.getElementById('filters'))].filter(([, v]) => v).map(([k, v]) => k + '=' + v).join('&'),
		  document.getElementById('count').textContent]`, func([]string) bool { return true })
		if got[0] != "?"+q || !sameQuery(got[1], q) || !strings.HasPrefix(got[2], "0 of 3 ") {
			t.Errorf("/?%s after a refresh: address %q, filters %q, %q", q, got[0], got[1], got[2])
		}
	}

	// 5: the iPhone's page has no Back; an Android phone's has.
	for serial, want := range map[string]bool{"ios-sim-01": false, "n1-p1": true} {
		navigate(t, ctx, base+"/devices/"+serial)
		if has := waitFor(t, ctx, 10*time.Second, "the controls", `document.querySelector('#controls') ? !!document.querySelector('button[data-action=back]') : null`,
			func(v *bool) bool { return v != nil }); *has != want {
			t.Errorf("%s: a Back button %v, want %v", serial, *has, want)
		}
	}

	// 6: a busy refusal: who holds it until when (local time), and what a person can do.
	agent := f.Client("agent")
	farmtest.MustCall(t, agent, "acquire_device", map[string]any{"serial": "n1-p2"})
	var leases struct {
		Leases []struct {
			Serial    string    `json:"serial"`
			ExpiresAt time.Time `json:"expires_at"`
		} `json:"leases"`
	}
	if err := json.Unmarshal([]byte(farmtest.Text(farmtest.MustCall(t, agent, "list_leases", map[string]any{}))), &leases); err != nil || len(leases.Leases) != 1 {
		t.Fatalf("list_leases: %v %+v", err, leases)
	}
	navigate(t, ctx, base+"/devices/n1-p2")
	waitFor(t, ctx, 10*time.Second, "the Home button", `!!document.querySelector('button[data-action=home]')`, func(b bool) bool { return b })
	waitFor(t, ctx, 5*time.Second, "a click on Home", `document.querySelector('button[data-action=home]').click(), true`, func(bool) bool { return true })
	msg := waitFor(t, ctx, 15*time.Second, "the busy answer", `document.querySelector('[data-result]').textContent`, func(s string) bool { return s != "" })
	zone, err := time.LoadLocation(browserTZ)
	if err != nil {
		t.Fatal(err)
	}
	local := leases.Leases[0].ExpiresAt.In(zone)
	if !strings.Contains(msg, "n1-p2 is busy: held by anonymous (agent) until ") || !strings.Contains(msg, "ask anonymous (agent) to release it") ||
		strings.Contains(msg, "wait_seconds") || strings.Contains(msg, "UTC") ||
		!(strings.Contains(msg, local.Format("15:04:05")) || strings.Contains(msg, local.Format("3:04:05 PM"))) {
		t.Errorf("the busy answer %q: want its holder, its expiry in %s (%s), and advice for a person", msg, browserTZ, local.Format("15:04:05"))
	}

	// 4: the device page says when the gateway does not answer, and stops when it answers.
	const warnJS = `(() => { const w = document.getElementById('warn'); return w.hidden ? '' : w.textContent; })()`
	if w := waitFor(t, ctx, 5*time.Second, "the warning", warnJS, func(string) bool { return true }); w != "" {
		t.Fatalf("a warning before the cut: %q", w)
	}
	link.Cut()
	waitFor(t, ctx, 15*time.Second, "the warning that the gateway does not answer", warnJS, func(s string) bool {
		return strings.HasPrefix(s, "The gateway does not answer")
	})
	link.Heal()
	waitFor(t, ctx, 15*time.Second, "the warning gone", warnJS, func(s string) bool { return s == "" })
}

// sameQuery reports whether two queries hold the same parameters, in any order.
func sameQuery(a, b string) bool {
	split := func(s string) []string {
		p := strings.Split(s, "&")
		for i := range p {
			p[i] = strings.TrimSpace(p[i])
		}
		return p
	}
	pa, pb := split(a), split(b)
	if len(pa) != len(pb) {
		return false
	}
	for _, x := range pa {
		found := false
		for _, y := range pb {
			found = found || x == y
		}
		if !found {
			return false
		}
	}
	return true
}
