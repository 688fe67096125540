package web

import (
	"encoding/json"
	"strings"
	"testing"
)

// A bbox swipe on a browser turns its centimetres into pixels through the profile's device
// pixel ratio, 160 dpi per unit (480 on the phone profile, 390x844@3), and does not say a
// density was assumed (QA Q13: "the device cannot report its screen density, 420 dpi
// assumed" on a browser that reports its viewport). Through the front door.
func TestBBoxSwipeUsesTheDevicePixelRatio(t *testing.T) {
	r := newRecorder(t)
	d := startBrowser(t, "phone")
	call, release := holdBrowser(t, d, "swiper")
	defer release()
	if text, failed := call("app_launch", map[string]any{"packageName": r.srv.URL}); failed {
		t.Fatal(text)
	}
	text, failed := call("swipe", map[string]any{"bbox": []float64{0.4, 0.4, 0.6, 0.6}, "direction": "up", "size": "s"})
	var got struct {
		Message            string
		DPI                int
		DensityAssumed     bool
		FromPixel, ToPixel struct{ X, Y int }
	}
	if err := json.Unmarshal([]byte(text), &got); failed || err != nil {
		t.Fatalf("swipe: %s (%v)", text, err)
	}
	// 1 cm at 480 dpi is 189 px.
	if got.DPI != 480 || got.DensityAssumed || strings.Contains(got.Message, "assumed") || got.FromPixel.Y-got.ToPixel.Y != 189 {
		t.Errorf("swipe answered dpi %d, densityAssumed %v, moved %d px, want 480 dpi, none assumed, 189 px: %s",
			got.DPI, got.DensityAssumed, got.FromPixel.Y-got.ToPixel.Y, text)
	}
}

// A desktop's CSS pixel is CSS's reference 1/96 inch, a phone's or tablet's 1/160 inch.
func TestDensityOfEachProfile(t *testing.T) {
	want := map[string]int{"phone": 480, "android": 420, "tablet": 320, "desktop": 96}
	for name, dpi := range want {
		p, err := ProfileNamed(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := densityOf(p); got != dpi {
			t.Errorf("%s: %d dpi, want %d", name, got, dpi)
		}
	}
}
