package tools

import (
	"context"
	"fmt"
	"image"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/device"
)

// noisyScreen's screenshot is grey with a camera's noise: to PNG, it does not compress.
type noisyScreen struct{ *fakeDriver }

func (n noisyScreen) Screenshot(context.Context) (image.Image, error) {
	img := image.NewRGBA(image.Rect(0, 0, n.size.Width, n.size.Height))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = 120 + byte(rng.UintN(16))
		if i%4 == 3 {
			img.Pix[i] = 0xff
		}
	}
	return img, nil
}

// take_screenshot's PNG scaled down to fit MaxImageBytes says so, and that jpeg is full size;
// one that fits says nothing. QA: 270×600 with no max_width on an arm, the size in the fields
// and no word of the scaling.
func TestPNGScaledToFitSaysSo(t *testing.T) {
	screen := newFake()
	screen.size = device.Size{Width: 720, Height: 1280}
	out, err := runOp(t, "take_screenshot", noisyScreen{screen}, `{"format":"png"}`)
	if err != nil {
		t.Fatal(err)
	}
	r := out.Data.(ScreenshotResult)
	if len(out.PNG) > MaxImageBytes || r.Width >= 720 {
		t.Fatalf("a noisy 720×1280 PNG: %d bytes, %d×%d", len(out.PNG), r.Width, r.Height)
	}
	for _, want := range []string{fmt.Sprintf("scaled to %d×%d (from 720×1280)", r.Width, r.Height), "300 KB", "format jpeg"} {
		if !strings.Contains(r.Message, want) {
			t.Errorf("message %q does not say %q", r.Message, want)
		}
	}

	// Asked for that width, it is as asked: nothing to say.
	out, err = runOp(t, "take_screenshot", noisyScreen{screen}, fmt.Sprintf(`{"format":"png","max_width":%d}`, r.Width))
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Data.(ScreenshotResult); got.Width != r.Width || got.Message != "" {
		t.Errorf("max_width %d: %d×%d, message %q; want as wide and no message", r.Width, got.Width, got.Height, got.Message)
	}
}
