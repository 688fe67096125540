package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/corral-farm/corral/internal/chromium"
	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/uitree"
)

// testPage records what it sees (touches, clicks, context menus, hovers, typing, keys) by
// posting each event to /log: the test reads the page's own account, not the driver's.
const testPage = `<!doctype html><html><head><meta name="viewport" content="width=device-width,initial-scale=1">
<style>body{margin:0;font:16px sans-serif} button,div.t{display:block;width:200px;height:60px;margin:10px}</style></head><body>
<button id="first" style="position:absolute;left:20px;top:20px">First</button>
<div class="t" id="hover" style="position:absolute;left:20px;top:100px">Hover me</div>
<div class="t" id="menu" style="position:absolute;left:20px;top:180px">Menu</div>
<input id="field" style="position:absolute;left:20px;top:260px;width:300px;height:40px" placeholder="Type here">
<a id="tab" href="/page2" target="_blank" style="position:absolute;left:20px;top:320px">Open a tab</a>
<div id="pad" style="position:absolute;left:0;top:380px;width:390px;height:300px;background:#eee">Swipe pad</div>
<button id="far" style="position:absolute;left:20px;top:2400px">Third</button>
<script>
const log = (type, e) => navigator.sendBeacon("/log", JSON.stringify({type, id: (e.target && e.target.id) || "", page: location.pathname,
  key: e.key || "", value: e.target && e.target.value || ""}));
for (const t of ["click", "dblclick", "contextmenu", "touchstart", "touchmove", "touchend", "input", "keydown"])
  addEventListener(t, e => log(t, e), true);
document.getElementById("hover").addEventListener("mouseover", e => log("mouseover", e));
</script></body></html>`

type pageEvent struct{ Type, ID, Page, Key, Value string }

// recorder serves testPage (and /page2) and collects what the pages post.
type recorder struct {
	mu     sync.Mutex
	events []pageEvent
	srv    *httptest.Server
}

// onTestPage starts a browser device of profile showing the recorder's test page, with a
// context that bounds the test's calls.
func onTestPage(t *testing.T, profile string) (*Driver, *recorder, context.Context) {
	t.Helper()
	d := startBrowser(t, profile)
	r := newRecorder(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	if err := d.LaunchApp(ctx, r.srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	return d, r, ctx
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, testPage) })
	mux.HandleFunc("/page2", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>two</title><p id="p2">Page two</p>`)
	})
	mux.HandleFunc("POST /log", func(w http.ResponseWriter, req *http.Request) {
		var e pageEvent
		if json.NewDecoder(req.Body).Decode(&e) == nil {
			r.mu.Lock()
			r.events = append(r.events, e)
			r.mu.Unlock()
		}
	})
	r.srv = httptest.NewServer(mux)
	t.Cleanup(r.srv.Close)
	return r
}

// await waits for the page to record an event matching want, and returns it.
func (r *recorder) await(t *testing.T, what string, want func(pageEvent) bool) pageEvent {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r.mu.Lock()
		for _, e := range r.events {
			if want(e) {
				r.mu.Unlock()
				return e
			}
		}
		n := len(r.events)
		r.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("the page never recorded %s (%d events: %+v)", what, n, r.events)
		}
		time.Sleep(10 * time.Millisecond) // polling what the page posted
	}
}

func (r *recorder) reset() {
	r.mu.Lock()
	r.events = nil
	r.mu.Unlock()
}

func on(typ, id string) func(pageEvent) bool {
	return func(e pageEvent) bool { return e.Type == typ && e.ID == id }
}

func startBrowser(t *testing.T, profile string) *Driver {
	t.Helper()
	return startBrowserWith(t, Options{Serial: "web-" + profile, Profile: mustProfile(t, profile)})
}

// startBrowserWith starts a browser device for the test (the phone profile unless o names
// one); without Chromium the test is skipped, or fails under CORRAL_REQUIRE_TOOLS.
func startBrowserWith(t *testing.T, o Options) *Driver {
	t.Helper()
	if _, err := chromium.Find(); err != nil {
		if os.Getenv("CORRAL_REQUIRE_TOOLS") != "" {
			t.Fatalf("%v, and CORRAL_REQUIRE_TOOLS is set", err)
		}
		t.Skip(err)
	}
	if o.Profile.Name == "" {
		o.Profile, _ = ProfileNamed("phone")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	d, err := Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// centre is the device pixel at the centre of a CSS box of the test page, at DPR 3.
func centre(left, top, w, h float64) device.Point {
	return device.Point{X: int((left + w/2) * 3), Y: int((top + h/2) * 3)}
}

func TestBrowserDeviceOnAPhoneProfile(t *testing.T) {
	d, r, ctx := onTestPage(t, "phone")
	if s, _ := d.ScreenSize(ctx); s != (device.Size{Width: 1170, Height: 2532}) {
		t.Errorf("screen %v", s)
	}
	img, err := d.Screenshot(ctx)
	if err != nil || img.Bounds().Dx() != 1170 || img.Bounds().Dy() != 2532 {
		t.Fatalf("screenshot %v, %v", img.Bounds(), err)
	}

	// A tap at the button's device pixels is a touch and a click on it.
	if err := d.Tap(ctx, centre(20, 20, 200, 60), 0); err != nil {
		t.Fatal(err)
	}
	r.await(t, "a touch on First", on("touchstart", "first"))
	r.await(t, "a click on First", on("click", "first"))

	// By selector: CSS and XPath, scrolled into view (Third lies far below the fold).
	if err := d.TapSelector(ctx, "//button[text()='Third']"); err != nil {
		t.Fatal(err)
	}
	r.await(t, "a click on Third", on("click", "far"))
	if err := d.HoverSelector(ctx, "#hover"); err != nil {
		t.Fatal(err)
	}
	r.await(t, "the pointer over Hover me", on("mouseover", "hover"))
	if err := d.SecondaryClickSelector(ctx, "div#menu"); err != nil {
		t.Fatal(err)
	}
	r.await(t, "a context menu on Menu", on("contextmenu", "menu"))
	r.reset()
	if err := d.TapSelector(ctx, "#first"); err != nil { // scrolls back up
		t.Fatal(err)
	}
	r.await(t, "a click on First", on("click", "first"))
	if err := d.SecondaryClick(ctx, centre(20, 180, 200, 60)); err != nil {
		t.Fatal(err)
	}
	r.await(t, "a context menu at Menu's pixels", on("contextmenu", "menu"))

	// Typing into the focused field, and keys.
	if err := d.TapSelector(ctx, "#field"); err != nil {
		t.Fatal(err)
	}
	if err := d.InputText(ctx, "hello web"); err != nil {
		t.Fatal(err)
	}
	r.await(t, "the text typed", func(e pageEvent) bool { return e.Type == "input" && e.Value == "hello web" })
	if err := d.PressKey(ctx, "ENTER"); err != nil {
		t.Fatal(err)
	}
	r.await(t, "Enter", func(e pageEvent) bool { return e.Type == "keydown" && e.Key == "Enter" && e.ID == "field" })

	// A swipe is a touch that moves.
	r.reset()
	if err := d.Swipe(ctx, centre(0, 380, 390, 300), centre(0, 380, 390, 100), 200*time.Millisecond, 0); err != nil {
		t.Fatal(err)
	}
	r.await(t, "the swipe's end", on("touchend", "pad"))
	r.mu.Lock()
	moves := 0
	for _, e := range r.events {
		if e.Type == "touchmove" {
			moves++
		}
	}
	r.mu.Unlock()
	if moves < 5 {
		t.Errorf("the swipe made %d touch moves, want at least 5", moves)
	}

	// The source: elements with device-pixel bounds.
	src, err := d.Source(ctx)
	if err != nil {
		t.Fatal(err)
	}
	els, err := uitree.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range els {
		if e.ResourceID == "first" {
			found = true
			// left 20 px and a 10 px margin, 200×60 CSS pixels: at 3×, from x = 90, 600×180
			if e.Text != "First" || !e.Clickable || e.Bounds.Min.X != 90 || e.Bounds.Dx() != 600 || e.Bounds.Dy() != 180 {
				t.Errorf("First in the source: %+v", e)
			}
		}
	}
	if !found {
		t.Errorf("First is not in the source:\n%s", src)
	}

	// Bad input: nothing matches, a selector that does not parse, URLs of other schemes.
	if err := d.TapSelector(ctx, "#nothing-here"); !errors.Is(err, device.ErrNoElement) {
		t.Errorf("no match: %v", err)
	}
	if err := d.TapSelector(ctx, "div[[["); !errors.Is(err, ErrBadSelector) {
		t.Errorf("bad CSS: %v", err)
	}
	if err := d.TapSelector(ctx, "//div[@"); !errors.Is(err, ErrBadSelector) {
		t.Errorf("bad XPath: %v", err)
	}
	for _, u := range []string{"file:///etc/passwd", "javascript:alert(1)", "chrome://settings", "not a url"} {
		if err := d.LaunchApp(ctx, u); !errors.Is(err, ErrBadURL) {
			t.Errorf("LaunchApp(%q): %v", u, err)
		}
	}
	if err := d.PressKey(ctx, "VOLUME_UP"); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("VOLUME_UP: %v", err)
	}
	if err := d.Tap(ctx, device.Point{X: 1170, Y: 10}, 0); err == nil {
		t.Error("a tap off the viewport was taken")
	}
}

// A link to a new tab brings it to the front; closing it brings back the one before, and BACK
// goes back in a tab's history.
func TestBrowserDeviceTabsAndHistory(t *testing.T) {
	d, r, ctx := onTestPage(t, "phone")
	if err := d.TapSelector(ctx, "#tab"); err != nil {
		t.Fatal(err)
	}
	front := func() string {
		u, err := d.ForegroundApp(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.HasSuffix(front(), "/page2") {
		if time.Now().After(deadline) {
			t.Fatalf("the new tab is not in front: %s", front())
		}
		time.Sleep(20 * time.Millisecond) // polling the browser's tabs
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := d.Screenshot(sctx); err != nil {
		t.Fatalf("a screenshot of the new tab: %v", err)
	}
	if err := d.CloseTab(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got := front(); got != r.srv.URL+"/" {
		t.Errorf("after closing the new tab, %s is in front", got)
	}
	if err := d.CloseTab(ctx, 3); !errors.Is(err, ErrNoTab) {
		t.Errorf("closing tab 3 of 1: %v", err)
	}
	if err := d.LaunchApp(ctx, r.srv.URL+"/page2"); err != nil {
		t.Fatal(err)
	}
	if err := d.PressKey(ctx, "BACK"); err != nil {
		t.Fatal(err)
	}
	if got := front(); got != r.srv.URL+"/" {
		t.Errorf("after BACK, %s is in front", got)
	}
	// The last tab closed: reads and taps refuse, and open nothing, until app_launch or HOME.
	if err := d.CloseTab(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if got := front(); got != "" {
		t.Errorf("no tab left, yet %q is in front", got)
	}
	noTab := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrNoTabOpen) || !errors.Is(err, device.ErrBadInput) || !strings.Contains(err.Error(), "app_launch") {
			t.Errorf("%s with no tab open: %v, want %q (bad input) saying to app_launch", what, err, ErrNoTabOpen)
		}
	}
	_, err := d.Screenshot(ctx)
	noTab("a screenshot", err)
	_, err = d.Source(ctx)
	noTab("the source", err)
	noTab("a tap", d.Tap(ctx, device.Point{X: 10, Y: 10}, 0))
	noTab("a swipe", d.Swipe(ctx, device.Point{X: 10, Y: 500}, device.Point{X: 10, Y: 100}, 100*time.Millisecond, 0))
	noTab("a tap by selector", d.TapSelector(ctx, "#tab"))
	noTab("ENTER", d.PressKey(ctx, "ENTER"))
	if pkgs, err := d.ListPackages(ctx); err != nil || len(pkgs) != 0 {
		t.Errorf("after the reads, the open tabs are %q (%v), want none: a read opened one", pkgs, err)
	}
	if err := d.PressKey(ctx, "HOME"); err != nil {
		t.Fatalf("HOME with no tab open: %v", err)
	}
	if got := front(); got != "about:blank" {
		t.Errorf("HOME opened %q, want home (about:blank)", got)
	}
	if err := d.CloseTab(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if err := d.LaunchApp(ctx, r.srv.URL+"/page2"); err != nil {
		t.Fatalf("app_launch with no tab open: %v", err)
	}
	if got := front(); got != r.srv.URL+"/page2" {
		t.Errorf("app_launch opened %q", got)
	}
	if _, err := d.Screenshot(ctx); err != nil {
		t.Errorf("a screenshot of the launched page: %v", err)
	}
}

// A desktop profile clicks with the mouse.
func TestBrowserDeviceOnADesktopProfile(t *testing.T) {
	d, r, ctx := onTestPage(t, "desktop")
	if err := d.Tap(ctx, device.Point{X: 120, Y: 50}, 0); err != nil {
		t.Fatal(err)
	}
	r.await(t, "a click on First", on("click", "first"))
	if err := d.DoubleTap(ctx, device.Point{X: 120, Y: 50}); err != nil {
		t.Fatal(err)
	}
	r.await(t, "a double click on First", on("dblclick", "first"))
}

// Reset leaves nothing of the last holder's: the cookie and the stored item its page set are
// gone, and so is the old profile directory.
func TestResetGivesAFreshProfile(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/saw" {
			mu.Lock()
			got = append(got, r.URL.RawQuery)
			mu.Unlock()
			return
		}
		fmt.Fprint(w, `<!doctype html><script>
fetch("/saw?" + encodeURIComponent("cookie=" + document.cookie + ";stored=" + (localStorage.getItem("k") || "")));
document.cookie = "who=holder-a; max-age=3600"; localStorage.setItem("k", "holder-a");
</script>`)
	}))
	t.Cleanup(srv.Close)
	d := startBrowserWith(t, Options{Serial: "web-reset"})
	ctx := context.Background()
	load := func() string {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if err := d.LaunchApp(ctx, srv.URL+"/"); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the page's report", func() bool { mu.Lock(); defer mu.Unlock(); return len(got) > n })
		mu.Lock()
		defer mu.Unlock()
		return got[n]
	}
	load()
	if second := load(); !strings.Contains(second, "holder-a") {
		t.Fatalf("the page did not keep its cookie and item within one profile: %q", second)
	}
	old := d.dir
	if err := d.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if after := load(); after != "cookie%3D%3Bstored%3D" && after != "cookie=;stored=" {
		t.Errorf("after Reset the page found %q, want no cookie and no stored item", after)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the old profile directory %s is still there: %v", old, err)
	}
}

// A download lands in the device's own directory (inside its profile, wiped with it); a page
// that never finishes loading holds the caller no longer than its deadline; a page that
// opens a hundred tabs on one tap keeps maxTabs of them, and the device goes on.
func TestBrowserDeviceDownloadsHangsAndPopups(t *testing.T) {
	hang := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><a id="dl" href="/report.csv" download>report</a>
<button id="spam" style="display:block;width:200px;height:60px" onclick="for (let i = 0; i < 100; i++) window.open('/popup?' + i)">spam</button>`)
	})
	mux.HandleFunc("/report.csv", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="report.csv"`)
		fmt.Fprint(w, "a,b\n1,2\n")
	})
	mux.HandleFunc("/popup", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "<p>popup</p>") })
	mux.HandleFunc("/never", func(http.ResponseWriter, *http.Request) { <-hang })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(hang) }) // before srv.Close, which waits for the handler
	d := startBrowserWith(t, Options{Serial: "web-edge"})
	ctx := context.Background()
	if err := d.LaunchApp(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if err := d.TapSelector(ctx, "#dl"); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(d.Downloads(), "report.csv")
	waitFor(t, "the download in the device's directory", func() bool {
		b, err := os.ReadFile(file)
		return err == nil && string(b) == "a,b\n1,2\n"
	})
	if !strings.HasPrefix(file, d.dir) {
		t.Errorf("downloads land in %s, outside the profile %s", file, d.dir)
	}

	if err := d.TapSelector(ctx, "#spam"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the popup's tab in front", func() bool {
		u, err := d.ForegroundApp(ctx)
		return err == nil && strings.Contains(u, "/popup")
	})
	if tabs, err := d.ListPackages(ctx); err != nil || len(tabs) > maxTabs {
		t.Errorf("%d tabs open after a page opened 100 (%v), want at most %d", len(tabs), err, maxTabs)
	}

	dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	start := time.Now()
	if err := d.LaunchApp(dctx, srv.URL+"/never"); err == nil {
		t.Error("a page that never loads was opened")
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("LaunchApp held its caller %s past a 2s deadline", took)
	}
	if _, err := d.Screenshot(ctx); err != nil {
		t.Errorf("the device after a page that never loaded: %v", err)
	}
}

// The browser's memory, all its processes together, is a gauge for /metrics.
func TestBrowserMemoryGauge(t *testing.T) {
	d := startBrowserWith(t, Options{Serial: "web-mem"})
	mib := d.Gauges()["memory_mib"]
	t.Logf("an idle browser device: %.0f MiB (PSS of its processes)", mib)
	if mib < 20 || mib > 2000 {
		t.Errorf("memory_mib %.1f: not a browser's", mib)
	}
}

// An elastic device starts its browser at its first use, stops it once idle, and starts a
// fresh one at the next use.
func TestElasticDeviceStartsOnUseAndStopsWhenIdle(t *testing.T) {
	r := newRecorder(t)
	d := startBrowserWith(t, Options{Serial: "web-elastic", Lazy: true, Idle: 300 * time.Millisecond})
	if d.Running() {
		t.Fatal("a lazy device started its browser before any use")
	}
	ctx := context.Background()
	// The first use starts the browser; held, it cannot go idle between the calls below, however
	// slow the machine.
	release, err := d.use(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Running() {
		t.Fatal("no browser after the first use")
	}
	if err := d.LaunchApp(ctx, r.srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if err := d.TapSelector(ctx, "#first"); err != nil {
		t.Fatal(err)
	}
	r.await(t, "a click on First", on("click", "first"))
	release()
	waitFor(t, "the idle browser stopped", func() bool { return !d.Running() })
	if got := d.Gauges()["memory_mib"]; got != 0 {
		t.Errorf("a stopped browser's memory_mib %g, want 0", got)
	}
	u, err := d.ForegroundApp(ctx) // a use: a new browser, on home
	if err != nil || u != "about:blank" {
		t.Errorf("after the idle stop, the front tab shows %q (%v), want a fresh browser's about:blank", u, err)
	}
}

// A browser that crashes is replaced at the device's next use, and the first call after says
// so instead of acting (screenshots say it without taking it: the console takes them between a
// holder's calls; health checks neither); another device's browser is not touched. A reset
// for the next holder has nothing to tell.
func TestCrashedBrowserIsReplaced(t *testing.T) {
	r := newRecorder(t)
	a := startBrowserWith(t, Options{Serial: "web-crash"})
	b := startBrowserWith(t, Options{Serial: "web-bystander"})
	ctx := context.Background()
	for _, d := range []*Driver{a, b} {
		if err := d.LaunchApp(ctx, r.srv.URL+"/"); err != nil {
			t.Fatal(err)
		}
	}
	killBrowser(t, a)
	for range 2 {
		if _, _, err := a.ScreenshotJPEG(ctx); !errors.Is(err, ErrBrowserReplaced) {
			t.Fatalf("a screenshot after the crash: %v, want ErrBrowserReplaced", err)
		}
	}
	if err := a.Health(ctx); err != nil {
		t.Fatalf("the health of the replaced browser: %v", err)
	}
	u, err := a.ForegroundApp(ctx)
	if !errors.Is(err, ErrBrowserReplaced) || !strings.Contains(err.Error(), "web-crash") || !strings.Contains(err.Error(), "app_launch") {
		t.Fatalf("the first call after the crash: %q, %v; want ErrBrowserReplaced naming the device and what to do", u, err)
	}
	if u, err := a.ForegroundApp(ctx); err != nil || u != "about:blank" {
		t.Fatalf("the second call after the crash: %q, %v; want the new browser's about:blank", u, err)
	}
	if err := a.LaunchApp(ctx, r.srv.URL+"/"); err != nil {
		t.Fatalf("the device after its browser crashed: %v", err)
	}
	if err := a.TapSelector(ctx, "#first"); err != nil {
		t.Fatal(err)
	}
	if u, err := b.ForegroundApp(ctx); err != nil || u != r.srv.URL+"/" {
		t.Errorf("the other device after the crash: %q, %v", u, err)
	}

	killBrowser(t, a)
	if _, _, err := a.ScreenshotJPEG(ctx); !errors.Is(err, ErrBrowserReplaced) { // seen, not told
		t.Fatalf("a screenshot after the second crash: %v, want ErrBrowserReplaced", err)
	}
	if err := a.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ForegroundApp(ctx); err != nil {
		t.Errorf("the first call after a reset: %v, want none of the last holder's crash", err)
	}
}

// killBrowser kills d's Chromium, as a crash or `pkill -9` does, and waits until d sees it.
func killBrowser(t *testing.T, d *Driver) {
	t.Helper()
	if err := chromedp.FromContext(d.browserCtx()).Browser.Process().Kill(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the killed browser seen as crashed", d.crashed)
}

// A browser that dies while it starts (Chromium has crashed at start-up on a loaded machine)
// is started once more, and the warning says so; one that keeps dying fails the start with a
// clear error after two tries. The Chromium here is a script that dies by SIGSEGV, as
// Chromium did, on its first start or on every one.
func TestBrowserDiedAtStartIsTriedOnceMore(t *testing.T) {
	chrome, err := chromium.Find()
	if err != nil {
		startBrowserWith(t, Options{}) // skips, or fails under CORRAL_REQUIRE_TOOLS
	}
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	script := func(name, dies string) string {
		path := filepath.Join(dir, name)
		body := fmt.Sprintf("#!/bin/sh\necho >> %q\nif %s; then kill -SEGV $$; fi\nexec %q \"$@\"\n", starts, dies, chrome)
		if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	startsSinceLast := func() int {
		data, _ := os.ReadFile(starts)
		n := strings.Count(string(data), "\n")
		_ = os.Remove(starts)
		return n
	}
	logs := &logtest.Recorder{}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	t.Setenv("CORRAL_CHROMIUM", script("dies-once", fmt.Sprintf(`[ "$(wc -l < %q)" -le 1 ]`, starts)))
	d, err := Start(ctx, Options{Serial: "web-flaky", Profile: mustProfile(t, "phone"), Log: slog.New(logs)})
	if err != nil {
		t.Fatalf("a browser that died once: %v", err)
	}
	t.Cleanup(func() { _ = d.Close() })
	if n := startsSinceLast(); n != 2 {
		t.Errorf("the browser was started %d times, want 2", n)
	}
	if !slices.ContainsFunc(logs.Records(), func(r slog.Record) bool { return strings.Contains(r.Message, "died while starting") }) {
		t.Error("no warning that the browser died while starting")
	}
	if u, err := d.ForegroundApp(ctx); err != nil || u != "about:blank" {
		t.Errorf("the started browser shows %q (%v), want about:blank", u, err)
	}

	t.Setenv("CORRAL_CHROMIUM", script("dies-always", "true"))
	_, err = Start(ctx, Options{Serial: "web-dead", Profile: mustProfile(t, "phone")})
	if !errors.Is(err, errDiedAtStart) || !strings.Contains(err.Error(), "web-dead") {
		t.Errorf("a browser that always dies: %v, want errDiedAtStart naming the device", err)
	}
	if n := startsSinceLast(); n != 2 {
		t.Errorf("the always-dying browser was started %d times, want 2", n)
	}
}

func mustProfile(t *testing.T, name string) Profile {
	t.Helper()
	p, err := ProfileNamed(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
