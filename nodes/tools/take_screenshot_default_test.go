package tools_test

import (
	"bytes"
	"image"
	"image/png"
	"testing"

	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/nodes/tools"
)

// imageOf is the image an op answered: as pixels, or decoded from its PNG (take_screenshot's
// default).
func imageOf(t *testing.T, out tools.Output) image.Image {
	t.Helper()
	if out.Image != nil || out.PNG == nil {
		return out.Image
	}
	img, err := png.Decode(bytes.NewReader(out.PNG))
	if err != nil {
		t.Fatalf("the PNG does not decode: %v", err)
	}
	return img
}

// take_screenshot {} is a PNG, as the phone-agent seed's ("返回 PNG 图片", image/png); JPEG
// with format jpeg. screenshot (HttpRunner's and PhysiClaw's) stays JPEG. QA: take_screenshot
// {} answered image/jpeg.
func TestTakeScreenshotIsPNGByDefault(t *testing.T) {
	p := sim.New("sim-png")
	defer p.Close()
	out := run(t, p, "take_screenshot", `{}`)
	r := out.Data.(tools.ScreenshotResult)
	if out.PNG == nil || out.JPEG != nil || out.Image != nil || r.Type != "image/png" {
		t.Fatalf("take_screenshot {}: %d PNG bytes, %d JPEG bytes, pixels %v, type %q; want a PNG", len(out.PNG), len(out.JPEG), out.Image != nil, r.Type)
	}
	if len(out.PNG) > tools.MaxImageBytes || r.Width != 1080 || r.Message != "" {
		t.Errorf("take_screenshot {}: %d bytes, %d wide, message %q; want the full screen under the cap", len(out.PNG), r.Width, r.Message)
	}
	if img := imageOf(t, out); img.Bounds().Dx() != r.Width || img.Bounds().Dy() != r.Height {
		t.Errorf("the PNG is %v, the result says %dx%d", img.Bounds(), r.Width, r.Height)
	}
	for args, want := range map[string]string{`{"format":"jpeg"}`: "image/jpeg", `{"format":"png"}`: "image/png"} {
		if got := run(t, p, "take_screenshot", args).Data.(tools.ScreenshotResult).Type; got != want {
			t.Errorf("take_screenshot %s: %s, want %s", args, got, want)
		}
	}
	if out := run(t, p, "screenshot", `{}`); out.PNG != nil || out.Data.(tools.ScreenshotResult).Type != "image/jpeg" {
		t.Errorf("screenshot {}: type %q; HttpRunner's seed sends JPEG", out.Data.(tools.ScreenshotResult).Type)
	}
}
