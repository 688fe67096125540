//go:build vision

package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/draw"
	"image/png"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/vision/corpus"
)

// withCopies is s with its icon's image drawn again at each of at, each copy with some noise
// (amplitude noise[i] gray levels): copies that match the icon less well, the more noise.
func withCopies(s *corpus.Screen, icon image.Rectangle, at []image.Point, noise []int) *corpus.Screen {
	img := image.NewRGBA(s.Image.Bounds())
	draw.Draw(img, img.Bounds(), s.Image, image.Point{}, draw.Src)
	seed := uint32(1)
	for i, p := range at {
		c := corpus.Crop(s.Image, icon)
		for j := range c.Pix {
			if j%4 == 3 {
				continue
			}
			seed = seed*1664525 + 1013904223
			v := int(c.Pix[j]) + int(seed>>24)%(2*noise[i]+1) - noise[i]
			c.Pix[j] = byte(min(255, max(0, v)))
		}
		draw.Draw(img, c.Bounds().Add(p), c, image.Point{}, draw.Src)
	}
	out := *s
	out.Image = img
	return &out
}

// tap_cv's index (HttpRunner's general option) picks among the matches best first, as the
// worker answers them: 0 the icon itself, 1 its lightly spoiled copy, 2 and -1 the most
// spoiled one; past the last it is not_found, saying how many there are. A non-zero index was
// refused, and index 0 tapped the copy at 0.98: asked for one match, the worker answered it.
func TestWorkerTapCVIndex(t *testing.T) {
	ops := DefaultOpsWith(OpsConfig{Vision: visionWorker(t)})
	s := smallScreen(t, corpus.Settings, 1)
	icon := s.Icons[1].Box // in the bottom bar; nothing else on the screen scores 0.6 against it
	at := []image.Point{{icon.Min.X, 900}, {icon.Min.X, 1100}}
	s = withCopies(s, icon, at, []int{30, 60})
	boxes := []image.Rectangle{icon, icon.Sub(icon.Min).Add(at[0]), icon.Sub(icon.Min).Add(at[1])}
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, corpus.Crop(s.Image, icon)))
	tmpl := base64.StdEncoding.EncodeToString(buf.Bytes())
	run := func(index int, ignore bool) (TapCVResult, *corpusPhone, error) {
		p := &corpusPhone{s: s}
		args, _ := json.Marshal(map[string]any{"imagePath": tmpl, "threshold": 0.8, "index": index, "ignore_NotFoundError": ignore})
		out, err := ops["tap_cv"].Run(context.Background(), &Task{Driver: p, Args: args})
		if err != nil {
			return TapCVResult{}, p, err
		}
		return out.Data.(TapCVResult), p, nil
	}
	for _, c := range []struct{ index, box int }{{0, 0}, {1, 1}, {2, 2}, {-1, 2}, {-3, 0}} {
		r, p, err := run(c.index, false)
		require.NoError(t, err, "index %d", c.index)
		require.Len(t, p.taps, 1, "index %d", c.index)
		at := image.Pt(p.taps[0].X, p.taps[0].Y)
		assert.True(t, at.In(boxes[c.box]), "index %d tapped %v (%s), want inside %v", c.index, at, r.Message, boxes[c.box])
		t.Logf("index %d: %s", c.index, r.Message)
	}
	_, p, err := run(3, false)
	require.Error(t, err)
	assert.Equal(t, broker.CodeNotFound, ErrorCode(err), "%v", err)
	assert.Contains(t, err.Error(), "shows 3 times")
	assert.Contains(t, err.Error(), "index 3 is out of range")
	assert.Empty(t, p.taps)
	r, p, err := run(-4, true)
	require.NoError(t, err)
	assert.False(t, r.Tapped)
	assert.Contains(t, r.Message, "index -4 is out of range")
	assert.Contains(t, r.Hint, "the image may need a swipe", "an image's hint, not swipe_to_tap_text's")
	assert.Empty(t, p.taps)
}
