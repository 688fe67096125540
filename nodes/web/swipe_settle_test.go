package web

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/uitree"
)

// tallColours are tallPage's boxes' colours, by id.
var tallColours = map[string]color.RGBA{
	"b0": {0xff, 0, 0, 0xff}, "b1": {0, 0xc0, 0, 0xff}, "b2": {0, 0, 0xff, 0xff}, "b3": {0xff, 0xc0, 0, 0xff},
	"b4": {0xc0, 0, 0xc0, 0xff}, "b5": {0, 0xc0, 0xc0, 0xff}, "b6": {0x80, 0x40, 0, 0xff}, "b7": {0, 0, 0, 0xff},
}

// tallPage is QA's page: no viewport meta tag (zoomed out to fit a phone), eight solid boxes
// 300×200 CSS pixels, 600 apart, on a white body 5200 tall.
func tallPage() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0;height:5200px;background:#fff}
div{position:absolute;left:300px;width:300px;height:200px}</style></head><body>`)
	for i := range 8 {
		c := tallColours[fmt.Sprintf("b%d", i)]
		fmt.Fprintf(&b, `<div id="b%d" aria-label="Box %d" style="top:%dpx;background:rgb(%d,%d,%d)"></div>`, i, i, 100+600*i, c.R, c.G, c.B)
	}
	b.WriteString(`</body></html>`)
	return b.String()
}

// A swipe answers once the page has stopped scrolling: a screenshot and the source taken at
// once after it show the same page, each box the source lists holding its colour in the
// screenshot. A swipe answered right after the finger lifted, while the fling still scrolled
// the page, and the boxes were 80-130 pixels off the screenshot taken just before them.
func TestSwipeAnswersOnceThePageIsStill(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, tallPage()) }))
	t.Cleanup(srv.Close)
	d := startBrowser(t, "phone")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := d.LaunchApp(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	w, h := d.prof.pixels()
	from, to := device.Point{X: w / 2, Y: h * 3 / 4}, device.Point{X: w / 2, Y: h / 4} // swipe "up"
	for i := range 3 {                                                                 // the third reaches the page's end
		if err := d.Swipe(ctx, from, to, 300*time.Millisecond, 0); err != nil {
			t.Fatal(err)
		}
		answered := inFront[visual](t, ctx, d, visualJS)
		showsOneState(t, ctx, d, fmt.Sprintf("swipe %d", i+1))
		if now := inFront[visual](t, ctx, d, visualJS); now != answered {
			t.Errorf("swipe %d answered with the page at %+v; it went on to %+v", i+1, answered, now)
		}
		if i == 0 {
			if top := inFront[visual](t, ctx, d, visualJS).PageTop; top <= 0 {
				t.Fatalf("the swipe did not scroll the page: it is at %v", top)
			}
		}
	}
}

// The reads wait for a page that scrolls itself (a smooth scroll a script started) to stop, so
// that a screenshot and the source read one after the other show one state.
func TestReadsWaitForASmoothScroll(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, tallPage()) }))
	t.Cleanup(srv.Close)
	d := startBrowser(t, "phone")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := d.LaunchApp(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	for i, top := range []int{1500, 300} {
		inFront[any](t, ctx, d, fmt.Sprintf(`scrollTo({top: %d, behavior: "smooth"})`, top))
		showsOneState(t, ctx, d, fmt.Sprintf("scroll %d", i+1))
	}
}

// showsOneState takes a screenshot and then the source at once, as peek does, and checks that
// every box of the tall page wholly on the screen shows its own colour there: at its centre,
// its inner corners and the middle of its top and bottom edges.
func showsOneState(t *testing.T, ctx context.Context, d *Driver, what string) {
	t.Helper()
	w, h := d.prof.pixels()
	screen := image.Rect(0, 0, w, h)
	img, err := d.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	src, err := d.Source(ctx)
	if err != nil {
		t.Fatal(err)
	}
	els, err := uitree.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, e := range els {
		want, ok := tallColours[e.ResourceID]
		box := e.Bounds
		if !ok || !box.In(screen) {
			continue
		}
		checked++
		c := box.Min.Add(box.Max).Div(2)
		ix, iy := box.Dx()/6, box.Dy()/6
		for _, p := range []image.Point{c, box.Min.Add(image.Pt(ix, iy)), box.Max.Sub(image.Pt(ix, iy)), {c.X, box.Min.Y + iy}, {c.X, box.Max.Y - iy}} {
			if got := color.RGBAModel.Convert(img.At(p.X, p.Y)); !near(got, want) {
				t.Errorf("%s: %s's box %v from the source: the screenshot at %v is %v, not its colour %v", what, e.ResourceID, box, p, got, want)
			}
		}
	}
	if checked == 0 {
		t.Errorf("%s: no box wholly on the screen to check:\n%s", what, src)
	}
}
