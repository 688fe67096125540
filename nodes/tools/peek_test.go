package tools

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
)

const peekDump = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">` +
	`<node class="android.widget.FrameLayout" text="" content-desc="" clickable="false" bounds="[0,0][1080,2400]">` +
	`<node class="android.widget.Button" text="Sign in" content-desc="Log in" clickable="true" bounds="[100,200][980,320]" />` +
	`<node class="android.widget.EditText" text="" content-desc="Password" clickable="true" bounds="[100,400][980,520]" />` +
	`<node class="android.widget.TextView" text="Tom &amp; &quot;Jerry&quot;&#10; show" clickable="false" bounds="[-20,600][1100,700]" />` +
	`<node class="android.widget.ImageView" text="" content-desc="" clickable="true" bounds="[0,2300][108,2400]" />` +
	`<node class="android.widget.TextView" text="off screen" clickable="false" bounds="[0,2400][1080,2500]" />` +
	`<node class="android.widget.TextView" text="no size" clickable="false" bounds="[5,5][5,9]" />` +
	`<node class="android.widget.LinearLayout" text="" content-desc="" clickable="false" bounds="[0,0][1080,100]" />` +
	`</node></hierarchy>` + "\nUI hierchary dumped to: /dev/tty\n"

func TestPeekListing(t *testing.T) {
	d := newAbled()
	d.SourceFn = func(context.Context) (string, error) { return peekDump, nil }
	out, err := runOp(t, "peek", d, `{}`)
	if err != nil {
		t.Fatal(err)
	}
	r := out.Data.(PeekResult)
	want := strings.Join([]string{
		`e1 [button] "Sign in" [0.093,0.083,0.907,0.133] 1.00`,
		`e2 [input] "Password" [0.093,0.167,0.907,0.217] 1.00`,
		`e3 [text] "Tom & \"Jerry\" show" [0.000,0.250,1.000,0.292] 1.00`,
		`e4 [button] "" [0.000,0.958,0.100,1.000] 1.00`,
	}, "\n")
	if r.Listing != want {
		t.Fatalf("listing:\n%s\nwant:\n%s", r.Listing, want)
	}
	if r.Elements != 4 || r.Width != 1080 || r.Height != 2400 || !strings.Contains(r.Hint, "bbox") || !strings.Contains(r.Message, "4 elements") {
		t.Fatalf("result %+v", r)
	}
	// The image is the screenshot with the boxes drawn on it.
	img, ok := out.Image.(*image.RGBA)
	if !ok || img.Bounds() != image.Rect(0, 0, 1080, 2400) {
		t.Fatalf("image %T %v", out.Image, out.Image.Bounds())
	}
	if c := img.RGBAAt(979, 319); c != markColor {
		t.Errorf("e1's box corner is %v, want the mark colour", c)
	}
	if c := img.RGBAAt(540, 260); c != (color.RGBA{}) { // the fake screenshot is blank
		t.Errorf("inside e1's box is %v: only the outline is drawn", c)
	}
}

// The listing's bboxes act where the elements are: tap(bbox) lands inside the element.
func TestPeekBBoxesTapTheirElements(t *testing.T) {
	d := newAbled()
	d.SourceFn = func(context.Context) (string, error) { return peekDump, nil }
	out, err := runOp(t, "peek", d, `{}`)
	if err != nil {
		t.Fatal(err)
	}
	bounds := []image.Rectangle{image.Rect(100, 200, 980, 320), image.Rect(100, 400, 980, 520), image.Rect(0, 600, 1080, 700), image.Rect(0, 2300, 108, 2400)}
	for i, line := range strings.Split(out.Data.(PeekResult).Listing, "\n") {
		var l, tp, r, b float64
		bbox := line[strings.LastIndex(line, "[") : strings.LastIndex(line, "]")+1]
		if _, err := fmt.Sscanf(bbox, "[%g,%g,%g,%g]", &l, &tp, &r, &b); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		res := mustRun(t, "tap", newAbled(), fmt.Sprintf(`{"bbox":[%g,%g,%g,%g]}`, l, tp, r, b))
		hit := image.Pt(int(res["x"].(float64)), int(res["y"].(float64)))
		if !hit.In(bounds[i]) {
			t.Errorf("%s: tap lands at %v, outside %v", line, hit, bounds[i])
		}
	}
}

func TestPeekWithoutATree(t *testing.T) {
	// A device that cannot dump its UI still gives its screenshot.
	out, err := runOp(t, "peek", newFake(), `{}`)
	if err != nil {
		t.Fatal(err)
	}
	r := out.Data.(PeekResult)
	if r.Listing != "" || r.Elements != 0 || !strings.Contains(r.Message, "cannot dump") || out.Image == nil {
		t.Fatalf("result %+v", r)
	}
	// A source that fails or does not parse: the screenshot and a note.
	for name, fn := range map[string]func(context.Context) (string, error){
		"error":   func(context.Context) (string, error) { return "", errDriver },
		"garbage": func(context.Context) (string, error) { return "<hierarchy><node>", nil },
	} {
		d := newAbled()
		d.SourceFn = fn
		out, err := runOp(t, "peek", d, `{}`)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r := out.Data.(PeekResult); r.Listing != "" || !strings.Contains(r.Message, "could not be read") || out.Image == nil {
			t.Fatalf("%s: result %+v", name, r)
		}
	}
	// peek takes no arguments.
	_, err = runOp(t, "peek", newAbled(), `{"x":1}`)
	wantCode(t, err, broker.CodeBadInput)
}

func TestPeekListingIsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<hierarchy>`)
	for i := range MaxPeekElements + 7 {
		fmt.Fprintf(&b, `<node class="android.widget.TextView" text="item %d %s" bounds="[0,%d][1080,%d]"/>`, i, strings.Repeat("long ", 40), i, i+1)
	}
	b.WriteString(`</hierarchy>`)
	d := newAbled()
	d.SourceFn = func(context.Context) (string, error) { return b.String(), nil }
	out, err := runOp(t, "peek", d, `{}`)
	if err != nil {
		t.Fatal(err)
	}
	r := out.Data.(PeekResult)
	lines := strings.Split(r.Listing, "\n")
	if r.Elements != MaxPeekElements || len(lines) != MaxPeekElements+1 || lines[len(lines)-1] != "… 7 more elements not listed" {
		t.Fatalf("%d elements, %d lines, last %q", r.Elements, len(lines), lines[len(lines)-1])
	}
	if l := lines[0]; !strings.HasPrefix(l, `e1 [text] "item 0 long`) || !strings.Contains(l, `…"`) {
		t.Fatalf("long labels are clipped: %q", l)
	}
}
