//go:build vision

package tools

import (
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/draw"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/corral-farm/corral/vision/corpus"
)

// tap_ocr by the real OCR on a screen with "Save as" above "Save" (no UI tree): "Save" is the
// line that says only that, not the first word of "Save as", and "Save as" is the line above.
func TestWorkerTapOCRPrefersAWholeLineToAPrefix(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 720, 600))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.RGBA{250, 250, 250, 255}), image.Point{}, draw.Src)
	ft, err := opentype.Parse(goregular.TTF)
	require.NoError(t, err)
	face, err := opentype.NewFace(ft, &opentype.FaceOptions{Size: 40, DPI: 72, Hinting: font.HintingFull})
	require.NoError(t, err)
	lines := []struct {
		text string
		band image.Rectangle // where its line is drawn
	}{{"Save as", image.Rect(0, 100, 720, 170)}, {"Save", image.Rect(0, 300, 720, 370)}}
	for _, l := range lines {
		d := font.Drawer{Dst: img, Src: image.Black, Face: face, Dot: fixed.P(60, l.band.Min.Y+50)}
		d.DrawString(l.text)
	}
	ops := DefaultOpsWith(OpsConfig{Vision: visionWorker(t)})
	for _, c := range []struct {
		text string
		band image.Rectangle
	}{{"Save", lines[1].band}, {"Save as", lines[0].band}} {
		p := &corpusPhone{s: &corpus.Screen{Image: img}}
		args, _ := json.Marshal(TapOCRArgs{Text: c.text})
		_, err := ops["tap_ocr"].Run(context.Background(), &Task{Driver: p, Args: args})
		require.NoError(t, err, c.text)
		require.Len(t, p.taps, 1, c.text)
		assert.True(t, image.Pt(p.taps[0].X, p.taps[0].Y).In(c.band), "tap_ocr %q tapped %v, not in its line %v", c.text, p.taps[0], c.band)
	}
}
