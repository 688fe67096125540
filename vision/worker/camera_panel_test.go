//go:build vision

package worker

import (
	"fmt"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/internal/geom"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/vision"
)

// An arm's camera sees a light text on a dark button (the Paste menu of the Notes app, after a
// long press with text on the clipboard), and peek and tap_ocr read it: tapping the middle of
// the word read, mapped back to the screen, pastes. QA: the arm twin's frame showed a dark
// "Paste" button, and neither its peek nor tap_ocr read it (the button lies inside the camera's
// dark surround and the text field's outline, and only the outermost dark regions were evened).
func TestOCRReadsALightButtonInACameraFrame(t *testing.T) {
	e := newEngine(t)
	for _, seed := range []int64{1} { // the twin of `corral up --sim-arm 1` (seeds 1-8 read it)
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			ctx := testCtx(t)
			tw, err := twin.Start(twin.Options{Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = tw.Close() })
			const clip = "from the clipboard"
			if err := tw.Phone.LaunchApp(ctx, "com.corral.notes"); err != nil {
				t.Fatal(err)
			}
			if err := tw.Phone.SetClipboard(ctx, clip); err != nil {
				t.Fatal(err)
			}
			if err := tw.Phone.Tap(ctx, device.Point{X: 540, Y: 800}, time.Second); err != nil { // a long press on the note
				t.Fatal(err)
			}
			frame, err := tw.Camera.Frame(ctx)
			if err != nil {
				t.Fatal(err)
			}
			img := encodePNG(t, frame)
			els, err := e.Elements(ctx, vision.ElementsRequest{Image: img})
			if err != nil {
				t.Fatal(err)
			}
			ocr, err := e.OCR(ctx, vision.OCRRequest{Image: img})
			if err != nil {
				t.Fatal(err)
			}
			var read []string
			var paste *vision.Box
			for _, el := range els.Elements {
				if el.Kind == "text" {
					read = append(read, el.Text)
					if el.Text == "Paste" {
						paste = &el.Box
					}
				}
			}
			if paste == nil {
				t.Fatalf("peek's elements of the camera frame have no \"Paste\": %q", read)
			}
			if !ocrHas(ocr, "Paste") {
				t.Errorf("tap_ocr's OCR of the camera frame has no \"Paste\": %q", read)
			}
			toFrame := tw.Camera.Conditions().ScreenToFrame()
			toScreen, err := toFrame.Inverse()
			if err != nil {
				t.Fatal(err)
			}
			p := toScreen.Apply(geom.Point{X: float64(paste.X) + float64(paste.W)/2, Y: float64(paste.Y) + float64(paste.H)/2})
			if err := tw.Phone.Tap(ctx, device.Point{X: int(p.X), Y: int(p.Y)}, 0); err != nil {
				t.Fatal(err)
			}
			if got := tw.Phone.Note(); got != clip {
				t.Errorf("a tap on the Paste read at %v (%.0f,%.0f on the screen) left the note %q, want %q", *paste, p.X, p.Y, got, clip)
			}
		})
	}
}

func ocrHas(res vision.OCRResult, word string) bool {
	for _, l := range res.Lines {
		for _, w := range l.Words {
			if w.Text == word {
				return true
			}
		}
	}
	return false
}
