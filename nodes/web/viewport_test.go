package web

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/tools"
	"github.com/corral-farm/corral/nodes/uitree"
)

// zoomPage is solid-colour buttons on a tall page, with or without a viewport meta tag (%s), Red
// at left %s; the page posts its clicks, touches and context menus to /log.
const zoomPage = `<!doctype html><html><head><meta charset="utf-8">%s<style>
body{margin:0;height:4000px} button{position:absolute;border:0;padding:0;margin:0;width:120px;height:120px}</style></head><body>
<button id="red" aria-label="Red" style="left:%s;top:300px;background:#ff0000"></button>
<button id="green" aria-label="Green" style="left:250px;top:700px;background:#00c000"></button>
<button id="blue" aria-label="Blue" style="left:60px;top:1500px;background:#0000ff"></button>
<script>
for (const t of ["click", "contextmenu", "touchstart", "mousedown"])
  addEventListener(t, e => navigator.sendBeacon("/log", JSON.stringify({type: t, id: e.target.id || ""})), true);
</script></body></html>`

var zoomColours = map[string]color.RGBA{"red": {0xff, 0, 0, 0xff}, "green": {0, 0xc0, 0, 0xff}, "blue": {0, 0, 0xff, 0xff}}

// zoomServer serves zoomPage at /meta (a viewport meta tag: laid out at the phone's width) and
// /wide (none: laid out 980 CSS pixels wide, and zoomed out to fit), and records what they post.
func zoomServer(t *testing.T) *recorder {
	r := &recorder{}
	mux := http.NewServeMux()
	mux.HandleFunc("/meta", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, zoomPage, `<meta name="viewport" content="width=device-width,initial-scale=1">`, "230px")
	})
	mux.HandleFunc("/wide", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintf(w, zoomPage, "", "600px") })
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

// inFront runs js in the front tab.
func inFront[T any](t *testing.T, ctx context.Context, d *Driver, js string) T {
	t.Helper()
	c, done, err := d.tab(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	v, err := chromedp.Run(c, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

type visual struct{ Scale, Left, Top, PageTop float64 }

const visualJS = `({scale: visualViewport.scale, left: visualViewport.offsetLeft, top: visualViewport.offsetTop, pageTop: visualViewport.pageTop})`

// awaitVisual waits for the front tab's visual viewport to be as ok wants it, and returns it.
func awaitVisual(t *testing.T, ctx context.Context, d *Driver, what string, ok func(visual) bool) visual {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v := inFront[visual](t, ctx, d, visualJS)
		if ok(v) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page never got %s: %+v", what, v)
		}
		time.Sleep(20 * time.Millisecond) // polling the page's state
	}
}

// boxes are the buttons' bounds in the device's source, by id.
func boxes(t *testing.T, ctx context.Context, d *Driver) map[string]image.Rectangle {
	t.Helper()
	src, err := d.Source(ctx)
	if err != nil {
		t.Fatal(err)
	}
	els, err := uitree.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]image.Rectangle{}
	for _, e := range els {
		if _, ok := zoomColours[e.ResourceID]; ok {
			out[e.ResourceID] = e.Bounds
		}
	}
	return out
}

// centreOf is the centre of the box the device's source gives the element of id.
func centreOf(t *testing.T, ctx context.Context, d *Driver, id string) device.Point {
	t.Helper()
	src, err := d.Source(ctx)
	if err != nil {
		t.Fatal(err)
	}
	els, err := uitree.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range els {
		if e.ResourceID == id {
			c := e.Bounds.Min.Add(e.Bounds.Max).Div(2)
			return device.Point{X: c.X, Y: c.Y}
		}
	}
	t.Fatalf("no element %q in the source:\n%s", id, src)
	return device.Point{}
}

func near(c color.Color, want color.RGBA) bool {
	r, g, b, _ := c.RGBA()
	d := func(v uint32, w uint8) bool { return int(v>>8)-int(w) < 48 && int(w)-int(v>>8) < 48 }
	return d(r, want.R) && d(g, want.G) && d(b, want.B)
}

// checkScreen checks that each button whose box the source puts on the screen has its colour
// there (the centre and points near the corners) in the screenshot, and that a tap, a right
// click and a swipe at the box's centre reach it. It returns the buttons it found on the screen.
func checkScreen(t *testing.T, ctx context.Context, d *Driver, r *recorder, what string) []string {
	t.Helper()
	w, h := d.prof.pixels()
	screen := image.Rect(0, 0, w, h)
	img, err := d.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds() != screen {
		t.Fatalf("%s: the screenshot is %v, the screen %v", what, img.Bounds(), screen)
	}
	var shown []string
	for id, box := range boxes(t, ctx, d) {
		if !box.In(screen) {
			continue
		}
		shown = append(shown, id)
		c := image.Pt((box.Min.X+box.Max.X)/2, (box.Min.Y+box.Max.Y)/2)
		ix, iy := box.Dx()/6, box.Dy()/6
		for _, p := range []image.Point{c, box.Min.Add(image.Pt(ix, iy)), image.Pt(box.Max.X-ix, box.Min.Y+iy),
			image.Pt(box.Min.X+ix, box.Max.Y-iy), box.Max.Sub(image.Pt(ix, iy))} {
			if got := color.RGBAModel.Convert(img.At(p.X, p.Y)); !near(got, zoomColours[id]) {
				t.Errorf("%s: %s's box %v from the source: the screenshot at %v is %v, not %s", what, id, box, p, got, id)
			}
		}
		at := device.Point{X: c.X, Y: c.Y}
		r.reset()
		if err := d.Tap(ctx, at, 0); err != nil {
			t.Fatal(err)
		}
		r.await(t, fmt.Sprintf("%s: a click on %s, tapped at its box's centre %v", what, id, c), on("click", id))
		r.reset()
		if err := d.SecondaryClick(ctx, at); err != nil {
			t.Fatal(err)
		}
		r.await(t, fmt.Sprintf("%s: a right click on %s at %v", what, id, c), on("contextmenu", id))
		r.reset()
		// a short swipe: a page that scrolls under it moves nothing a later check reads
		if err := d.Swipe(ctx, at, device.Point{X: at.X + 1, Y: at.Y + 1}, 50*time.Millisecond, 0); err != nil {
			t.Fatal(err)
		}
		down := "touchstart"
		if !d.prof.Mobile {
			down = "mousedown"
		}
		r.await(t, fmt.Sprintf("%s: a swipe starting on %s at %v", what, id, c), on(down, id))
	}
	return shown
}

// The source's boxes, the screenshot and the coordinates a tap takes are one space, the
// screenshot's pixels, however the page is zoomed or scrolled: a page without a viewport meta
// tag (most desktop sites), which a phone lays out 980 CSS pixels wide and zooms out to fit,
// had its boxes at CSS × DPR (Red, drawn at x 717, listed at 1800 on a 1170-pixel screen) and
// taps landing where the unzoomed page would be; a pinch-zoomed page had both off by the
// zoom's offset. A tap by selector lands on its element in each.
func TestBoxesAndTapsMatchTheScreenshot(t *testing.T) {
	r := zoomServer(t)
	d := startBrowser(t, "phone")
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	selector := func(what string) {
		t.Helper()
		for _, id := range []string{"red", "blue"} {
			r.reset()
			if err := d.TapSelector(ctx, "#"+id); err != nil {
				t.Fatal(err)
			}
			r.await(t, fmt.Sprintf("%s: a click on %s by selector", what, id), on("click", id))
		}
	}

	// Zoomed out: no viewport meta tag.
	if err := d.LaunchApp(ctx, r.srv.URL+"/wide"); err != nil {
		t.Fatal(err)
	}
	awaitVisual(t, ctx, d, "zoomed out to fit", func(v visual) bool { return v.Scale < 0.5 })
	if got := checkScreen(t, ctx, d, r, "zoomed out"); len(got) != 3 {
		t.Errorf("zoomed out, the whole 980-pixel width shows, and the source put %v on it, want red, green and blue", got)
	}
	// Through the tools, as QA found it: tap_xy where Red is drawn, relative to the screen.
	red := boxes(t, ctx, d)["red"]
	r.reset()
	args := fmt.Sprintf(`{"x":%g,"y":%g}`, float64(red.Min.X+red.Max.X)/2/1170, float64(red.Min.Y+red.Max.Y)/2/2532)
	if _, err := tools.DefaultOps()["tap_xy"].Run(ctx, &tools.Task{Driver: d, Args: []byte(args)}); err != nil {
		t.Fatal(err)
	}
	r.await(t, "tap_xy "+args+" on Red", on("click", "red"))

	// Zoomed out and scrolled: Red above the screen, Green and Blue on it.
	inFront[any](t, ctx, d, `scrollTo(0, 500)`)
	awaitVisual(t, ctx, d, "scrolled to 500", func(v visual) bool { return v.PageTop == 500 })
	if got := checkScreen(t, ctx, d, r, "zoomed out, scrolled"); len(got) != 2 {
		t.Errorf("zoomed out and scrolled, the source put %v on the screen, want green and blue", got)
	}
	selector("zoomed out")

	// A page laid out at the phone's width, scrolled.
	if err := d.LaunchApp(ctx, r.srv.URL+"/meta"); err != nil {
		t.Fatal(err)
	}
	awaitVisual(t, ctx, d, "unzoomed", func(v visual) bool { return v.Scale == 1 })
	if got := checkScreen(t, ctx, d, r, "unzoomed"); len(got) != 2 {
		t.Errorf("unzoomed, the source put %v on the screen, want red and green", got)
	}
	inFront[any](t, ctx, d, `scrollTo(0, 1000)`)
	awaitVisual(t, ctx, d, "scrolled to 1000", func(v visual) bool { return v.PageTop == 1000 })
	if got := checkScreen(t, ctx, d, r, "unzoomed, scrolled"); len(got) != 1 {
		t.Errorf("unzoomed and scrolled, the source put %v on the screen, want blue", got)
	}

	// Pinched in around Red: the screen shows a part of the layout viewport, offset in it.
	inFront[any](t, ctx, d, `scrollTo(0, 0)`)
	awaitVisual(t, ctx, d, "scrolled back", func(v visual) bool { return v.PageTop == 0 })
	c, done, err := d.tab(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = chromedp.Call(c, input.SynthesizePinchGesture, input.SynthesizePinchGestureParams{X: 290, Y: 360, ScaleFactor: 1.5})
	done()
	if err != nil {
		t.Fatal(err)
	}
	v := awaitVisual(t, ctx, d, "pinched in", func(v visual) bool { return v.Scale > 1.3 && v.Left > 50 && v.Top > 50 })
	if got := checkScreen(t, ctx, d, r, fmt.Sprintf("pinched in (%+v)", v)); len(got) != 1 || got[0] != "red" {
		t.Errorf("pinched in around Red, the source put %v on the screen, want red", got)
	}
	selector("pinched in")
}

// A desktop profile (the mouse, no zoom) scrolled: boxes, the screenshot and clicks agree.
func TestBoxesAndClicksMatchTheScreenshotOnADesktop(t *testing.T) {
	r := zoomServer(t)
	d := startBrowser(t, "desktop")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := d.LaunchApp(ctx, r.srv.URL+"/wide"); err != nil {
		t.Fatal(err)
	}
	if got := checkScreen(t, ctx, d, r, "desktop"); len(got) != 1 || got[0] != "red" {
		t.Errorf("on a desktop, the source put %v wholly on the screen, want red", got)
	}
	inFront[any](t, ctx, d, `scrollTo(0, 1000)`)
	awaitVisual(t, ctx, d, "scrolled to 1000", func(v visual) bool { return v.PageTop == 1000 })
	if got := checkScreen(t, ctx, d, r, "desktop, scrolled"); len(got) != 1 || got[0] != "blue" {
		t.Errorf("on a desktop scrolled, the source put %v on the screen, want blue", got)
	}
}
