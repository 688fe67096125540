//go:build vision

package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/vision/corpus"
)

// textBounds is where the sim's UI tree draws text, in the screenshot's pixels.
func textBounds(t *testing.T, p *sim.Phone, text string) image.Rectangle {
	t.Helper()
	src, err := p.Source(context.Background())
	require.NoError(t, err)
	m := regexp.MustCompile(`text="` + regexp.QuoteMeta(text) + `"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"`).FindStringSubmatch(src)
	require.NotNil(t, m, "the sim shows no %q", text)
	n := make([]int, 4)
	for i := range n {
		n[i], _ = strconv.Atoi(m[i+1])
	}
	return image.Rect(n[0], n[1], n[2], n[3])
}

// ink is the part of box in img that differs from its top-left pixel (the text on its
// background), and 3 pixels around: what a user cuts as the text.
func ink(img image.Image, box image.Rectangle) image.Rectangle {
	gray := func(x, y int) int { return int(color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y) }
	bg, out := gray(box.Min.X, box.Min.Y), image.Rectangle{}
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			if d := gray(x, y) - bg; d > 40 || d < -40 {
				out = out.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return out.Inset(-3).Intersect(box)
}

// tap_cv finds an exact crop of the screen, at scale 1 and pixel for pixel, whatever else the
// screen shows: thin text on a plain background, which shrinking for the search's coarse pass
// blurs under its threshold, and a row among many alike, which crowd it out of the coarse
// pass's few places. While scale 1 was tried only around the places the coarse pass kept, the
// date was not_found and "Item 10" scored 0.83 at scale 1.02.
func TestWorkerTapCVFindsAnExactCropOfText(t *testing.T) {
	ops := DefaultOpsWith(OpsConfig{Vision: visionWorker(t)})
	for _, tc := range []struct{ app, text string }{
		{"", "Monday, January 1"},      // the home screen's date, thin on its wallpaper
		{"com.corral.shop", "Item 10"}, // one of 13 rows "Item N"
	} {
		t.Run(tc.text, func(t *testing.T) {
			p := simIn(t, tc.app)
			screen, err := p.Screenshot(context.Background())
			require.NoError(t, err)
			box := ink(screen, textBounds(t, p, tc.text))
			var buf bytes.Buffer
			require.NoError(t, png.Encode(&buf, corpus.Crop(screen, box)))
			args := fmt.Sprintf(`{"imagePath":"data:image/png;base64,%s"}`, base64.StdEncoding.EncodeToString(buf.Bytes()))
			out, err := ops["tap_cv"].Run(context.Background(), &Task{Driver: p, Args: json.RawMessage(args)})
			require.NoError(t, err, "%q cut from the screen at %v", tc.text, box)
			r := out.Data.(TapCVResult)
			require.NotNil(t, r.Point)
			assert.True(t, image.Pt(r.Point.X, r.Point.Y).In(box), "%q: tapped %v, not inside its box %v", tc.text, *r.Point, box)
			assert.GreaterOrEqual(t, r.Confidence, 0.99, "%q: the crop itself, pixel for pixel", tc.text)
			assert.Equal(t, 1.0, r.Scale, "%q: at scale 1", tc.text)
		})
	}
}
