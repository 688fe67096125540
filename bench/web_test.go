package bench

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/client"

	"github.com/corral-farm/corral/internal/chromium"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/web"
)

// tapPage counts the touches its own listener sees, posting each to /touch.
const tapPage = `<!doctype html><meta name="viewport" content="width=device-width,initial-scale=1">
<body style="margin:0;height:100vh;background:#fafafa"><p>Tap anywhere</p><script>
addEventListener("touchstart", () => navigator.sendBeacon("/touch", "1"), true);
</script></body>`

// touchSite serves tapPage and counts the touches it reports.
func touchSite(b *testing.B) (string, *atomic.Int64) {
	var n atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, tapPage) })
	mux.HandleFunc("POST /touch", func(http.ResponseWriter, *http.Request) { n.Add(1) })
	mux.HandleFunc("/list", func(w http.ResponseWriter, _ *http.Request) { // a 1,000-item page
		fmt.Fprint(w, `<!doctype html><meta name="viewport" content="width=device-width,initial-scale=1"><ul>`)
		for i := range 1000 {
			fmt.Fprintf(w, `<li><a href="/item/%d">Item %d</a> <button>Add</button></li>`, i, i)
		}
		fmt.Fprint(w, `</ul>`)
	})
	srv := httptest.NewServer(mux)
	b.Cleanup(srv.Close)
	return srv.URL, &n
}

// landed waits until the page has reported more than n touches.
func landed(b *testing.B, touches *atomic.Int64, n int64) {
	for deadline := time.Now().Add(10 * time.Second); touches.Load() <= n; {
		if time.Now().After(deadline) {
			b.Fatal("the page never saw the touch")
		}
		time.Sleep(100 * time.Microsecond) // polling the page's report
	}
}

// BenchmarkWeb taps and captures a browser device (the phone profile, 390×844 at 3×) through
// the front door, side by side with chromedp doing the same straight to another browser on
// the same page: a tap until the page's own listener reports it (target ≤ 1.5× direct), and a
// screenshot (target ≤ 1.3× chromedp's capture).
func BenchmarkWeb(b *testing.B) {
	path, err := chromium.Find()
	if err != nil {
		b.Skip(err)
	}
	site, touches := touchSite(b)
	directSite, directTouches := touchSite(b) // each side counts its own page's touches
	f := farmtest.StartEmpty(b, farmtest.Options{Quiet: true, Platforms: []device.Platform{web.Platform()}})
	if err := f.StartNodes(0, "n1"); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	phone, _ := web.ProfileNamed("phone")
	d, err := web.Start(ctx, web.Options{Serial: "web-bench", Profile: phone})
	if err != nil {
		b.Fatal(err)
	}
	f.AddDriver("n1", d)
	// The direct side: chromedp on a browser of its own, emulating the same phone.
	actx, acancel := chromedp.NewExecAllocator(context.Background(),
		append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox)...)
	defer acancel()
	dctx, dcancel := chromedp.NewContext(actx)
	defer dcancel()
	if err := chromedp.Do(dctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(3), chromedp.EmulateMobile, chromedp.EmulateTouch),
		chromedp.Navigate(directSite+"/")); err != nil {
		b.Fatal(err)
	}
	f.WaitDevices(1, "online") // the gateway knows a device once its node has written the registry
	c := httpClient(b, f, "bench-web")
	lease := leaseHandle(b, c, map[string]any{"serial": "web-bench"})
	defer func() { _, _ = call(c, "release_device", map[string]any{"lease": lease}) }()
	if _, err := call(c, "app_launch", map[string]any{"serial": "web-bench", "lease": lease, "packageName": site + "/"}); err != nil {
		b.Fatal(err)
	}
	b.Run("op=tap", func(b *testing.B) {
		var gw, dir []time.Duration
		for b.Loop() {
			n, start := touches.Load(), time.Now()
			if _, err := call(c, "tap_xy", map[string]any{"serial": "web-bench", "lease": lease, "x": 0.5, "y": 0.5}); err != nil {
				b.Fatal(err)
			}
			landed(b, touches, n)
			gw = append(gw, time.Since(start))
			n, start = directTouches.Load(), time.Now()
			if err := chromedp.Do(dctx, chromedp.TapXY(195, 422)); err != nil {
				b.Fatal(err)
			}
			landed(b, directTouches, n)
			dir = append(dir, time.Since(start))
		}
		reportSideBySide(b, gw, dir)
	})
	b.Run("op=screenshot", func(b *testing.B) {
		var gw, dir []time.Duration
		for b.Loop() {
			start := time.Now()
			if _, err := call(c, "screenshot", map[string]any{"serial": "web-bench", "lease": lease}); err != nil {
				b.Fatal(err)
			}
			gw = append(gw, time.Since(start))
			start = time.Now()
			if _, err := chromedp.Run(dctx, chromedp.CaptureScreenshot()); err != nil {
				b.Fatal(err)
			}
			dir = append(dir, time.Since(start))
		}
		reportSideBySide(b, gw, dir)
	})
	b.Run("op=peek-1000", func(b *testing.B) { // peek's element listing of a 1,000-item page
		if _, err := call(c, "app_launch", map[string]any{"serial": "web-bench", "lease": lease, "packageName": site + "/list"}); err != nil {
			b.Fatal(err)
		}
		var lat []time.Duration
		for b.Loop() {
			start := time.Now()
			if _, err := call(c, "peek", map[string]any{"serial": "web-bench", "lease": lease}); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
		}
		reportLatency(b, "", lat)
	})
}

// reportSideBySide reports both sides' p50 and the ratio of the front door's over direct.
func reportSideBySide(b *testing.B, gw, dir []time.Duration) {
	slices.Sort(gw)
	slices.Sort(dir)
	g, d := percentile(gw, 0.5), percentile(dir, 0.5)
	b.ReportMetric(float64(g.Microseconds()), "p50-µs")
	b.ReportMetric(float64(d.Microseconds()), "direct-p50-µs")
	b.ReportMetric(float64(g)/float64(d), "ratio")
}

// BenchmarkWebFleet runs 20 browser devices on one node (2 cores) on a light page, one caller
// each tapping at once: the taps' p99 through the front door (target ≤ 100 ms) beside the same
// taps straight to the drivers (Chromium's floor here), and the devices' memory while idle
// (their PSS, mean of the 20, as /metrics shows it).
func BenchmarkWebFleet(b *testing.B) {
	if _, err := chromium.Find(); err != nil {
		b.Skip(err)
	}
	const n = 20
	site, _ := touchSite(b)
	f := farmtest.StartEmpty(b, farmtest.Options{Quiet: true, Platforms: []device.Platform{web.Platform()}})
	if err := f.StartNodes(0, "n1"); err != nil {
		b.Fatal(err)
	}
	phone, _ := web.ProfileNamed("phone")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	drivers := make([]*web.Driver, n)
	for i := range drivers {
		d, err := web.Start(ctx, web.Options{Serial: fmt.Sprintf("web-%02d", i+1), Profile: phone})
		if err != nil {
			b.Fatal(err)
		}
		drivers[i] = d
		f.AddDriver("n1", d)
	}
	f.WaitDevices(n, "online")
	mib := 0.0
	for _, d := range drivers {
		mib += d.Gauges()["memory_mib"]
	}
	clients, leases := make([]*client.Client, n), make([]string, n)
	for i := range clients {
		clients[i] = httpClient(b, f, fmt.Sprintf("agent-%d", i))
		serial := fmt.Sprintf("web-%02d", i+1)
		leases[i] = leaseHandle(b, clients[i], map[string]any{"serial": serial})
		if _, err := call(clients[i], "app_launch", map[string]any{"serial": serial, "lease": leases[i], "packageName": site + "/"}); err != nil {
			b.Fatal(err)
		}
	}
	var mu sync.Mutex
	var lat, direct []time.Duration
	// A round of 20 taps at once, through the front door, then the same straight to the
	// drivers (Chromium's own floor on these cores), side by side.
	round := func(into *[]time.Duration, tap func(i int) error) {
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				start := time.Now()
				if err := tap(i); err != nil {
					b.Error(err)
					return
				}
				mu.Lock()
				*into = append(*into, time.Since(start))
				mu.Unlock()
			})
		}
		wg.Wait()
	}
	for b.Loop() {
		round(&lat, func(i int) error {
			_, err := call(clients[i], "tap_xy", map[string]any{"serial": fmt.Sprintf("web-%02d", i+1), "lease": leases[i], "x": 0.5, "y": 0.5})
			return err
		})
		round(&direct, func(i int) error { return drivers[i].Tap(context.Background(), device.Point{X: 585, Y: 1266}, 0) })
	}
	slices.Sort(lat)
	slices.Sort(direct)
	b.ReportMetric(float64(percentile(lat, 0.99).Microseconds()), "p99-µs")
	b.ReportMetric(float64(percentile(lat, 0.5).Microseconds()), "p50-µs")
	b.ReportMetric(float64(percentile(direct, 0.99).Microseconds()), "direct-p99-µs")
	b.ReportMetric(float64(percentile(lat, 0.99))/float64(percentile(direct, 0.99)), "p99-ratio")
	b.ReportMetric(mib/n, "idle-MiB/device")
}
