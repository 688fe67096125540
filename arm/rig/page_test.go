package rig

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/corral-farm/corral/arm/calib"
	"github.com/corral-farm/corral/internal/chromium"
	"github.com/corral-farm/corral/internal/geom"
	"github.com/corral-farm/corral/nodes/device"
)

func post(t *testing.T, url, body string) int {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// nextTouch waits for the readback's next touch.
func nextTouch(t *testing.T, touches <-chan geom.Point) geom.Point {
	t.Helper()
	select {
	case p, ok := <-touches:
		if !ok {
			t.Fatal("the readback stream ended")
		}
		return p
	case <-time.After(10 * time.Second):
		t.Fatal("no touch came back")
	}
	return geom.Point{}
}

// The page server hands what a page reports to the rig's readback, and refuses what no page
// would send.
func TestPagesReadBackWhatThePageReports(t *testing.T) {
	srv := httptest.NewServer(NewPages(nil).Handler())
	t.Cleanup(srv.Close)
	rig := srv.URL + "/bench-arm-1"
	if code := post(t, rig+"/report", `{"x":10,"y":10}`); code != http.StatusBadRequest {
		t.Errorf("a touch before the page's size: %d, want 400", code)
	}
	if code := post(t, rig+"/report", `{"width":1170,"height":2532}`); code != http.StatusNoContent {
		t.Fatalf("size: %d", code)
	}
	if code := post(t, rig+"/report", `{"x":10,"y":10}`); code != http.StatusAccepted {
		t.Errorf("a touch while no calibration reads: %d, want 202", code)
	}
	ctx := context.Background()
	touches, size, stop, err := HTTPReadback{URL: rig + "/events"}.ShowCalibration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if size != (device.Size{Width: 1170, Height: 2532}) {
		t.Errorf("size %v", size)
	}
	if _, _, _, err := (HTTPReadback{URL: rig + "/events"}).ShowCalibration(ctx); err == nil || !strings.Contains(err.Error(), "409") {
		t.Errorf("a second stream: %v, want 409", err)
	}
	if code := post(t, rig+"/report", `{"x":300.5,"y":600}`); code != http.StatusNoContent {
		t.Fatalf("touch: %d", code)
	}
	if p := nextTouch(t, touches); p != (geom.Point{X: 300.5, Y: 600}) {
		t.Errorf("touch %v, want (300.5, 600)", p)
	}
	for _, bad := range []string{`{"x":2000,"y":10}`, `{"x":-1,"y":10}`, `{"width":0,"height":5}`, `{"width":30000,"height":5}`, `{}`, `not json`, `{"x":1}`} {
		if code := post(t, rig+"/report", bad); code != http.StatusBadRequest {
			t.Errorf("report %s: %d, want 400", bad, code)
		}
	}
	if code := post(t, srv.URL+"/bad%20name/report", `{"width":1,"height":1}`); code != http.StatusNotFound {
		t.Errorf("a bad rig name: %d, want 404", code)
	}
}

// browser starts headless Chromium for the test, emulating a phone of w×h CSS pixels at dpr.
func browser(t *testing.T, w, h int64, dpr float64) context.Context {
	t.Helper()
	path, err := chromium.Find()
	if err != nil {
		if os.Getenv("CORRAL_REQUIRE_TOOLS") != "" {
			t.Fatalf("%v, and CORRAL_REQUIRE_TOOLS is set", err)
		}
		t.Skip(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, h, chromedp.EmulateScale(dpr), chromedp.EmulateMobile, chromedp.EmulateTouch)); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// A phone's browser, full screen, shows the calibration page at the screen's own pixels, and
// each touch comes back to the rig's readback where it landed, in screen pixels.
func TestCalibrationPageInABrowser(t *testing.T) {
	ctx := browser(t, 390, 844, 3) // an iPhone 13's screen: 1170×2532 pixels
	srv := httptest.NewServer(NewPages(nil).Handler())
	t.Cleanup(srv.Close)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/bench-arm-1/")); err != nil {
		t.Fatal(err)
	}
	touches, size, stop, err := HTTPReadback{URL: srv.URL + "/bench-arm-1/events"}.ShowCalibration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if size != (device.Size{Width: 1170, Height: 2532}) {
		t.Fatalf("the page told %v, want the screen's 1170×2532 pixels", size)
	}
	for _, at := range []geom.Point{{X: 100, Y: 200}, {X: 333.5, Y: 801}} {
		if err := chromedp.Do(ctx, chromedp.TapXY(at.X, at.Y)); err != nil {
			t.Fatal(err)
		}
		if got, want := nextTouch(t, touches), (geom.Point{X: at.X * 3, Y: at.Y * 3}); got.Dist(want) > 1.5 {
			t.Errorf("a touch at CSS (%g, %g) came back at %v, want %v", at.X, at.Y, got, want)
		}
	}

	// What the camera sees: white, with a grey dot at each probe.
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Size() != image.Pt(1170, 2532) {
		t.Fatalf("screenshot %v", img.Bounds())
	}
	luma := func(p geom.Point) uint32 {
		r, g, b, _ := img.At(int(p.X), int(p.Y)).RGBA()
		return (r + g + b) / 3 >> 8
	}
	probes := calib.Probes(1170, 2532, 9)
	for i, p := range probes {
		if l := luma(p); l < 100 || l > 200 {
			t.Errorf("probe %d at %v: luma %d, want the grey dot", i, p, l)
		}
	}
	if l := luma(geom.Point{X: (probes[0].X + probes[1].X) / 2, Y: probes[0].Y}); l < 250 {
		t.Errorf("between probes: luma %d, want white", l)
	}
}
