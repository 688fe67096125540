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
	"image/draw"
	"image/png"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/vision/corpus"
)

// The vision tools against a real worker (vision/worker's engine behind vision/service, on an
// in-process NATS server): what the tools make of what OCR and template matching really
// answer. The untagged build tests what needs no worker (vision_tools_test.go). Their names
// start with TestWorker: `go test -tags vision -run '^TestWorker|Accuracy' ./nodes/tools/`.

// smallScreen draws a 720×1280 corpus screen (the tools PNG-encode every screenshot, which
// takes seconds for a 1080×2400 one under the race detector).
func smallScreen(t *testing.T, layout corpus.Layout, seed uint64) *corpus.Screen {
	t.Helper()
	s, err := corpus.Draw(corpus.Spec{Layout: layout, Seed: seed, Width: 720, Height: 1280, Size: 32})
	require.NoError(t, err)
	return s
}

// latePhone is a corpusPhone whose screen shows only after blank screenshots (a page still
// loading); it counts the screenshots taken.
type latePhone struct {
	corpusPhone
	blank int

	mu    sync.Mutex
	shots int
}

func (p *latePhone) Screenshot(ctx context.Context) (image.Image, error) {
	p.mu.Lock()
	p.shots++
	n := p.shots
	p.mu.Unlock()
	if n <= p.blank {
		img := image.NewRGBA(p.s.Image.Bounds())
		draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
		return img, nil
	}
	return p.corpusPhone.Screenshot(ctx)
}

func (p *latePhone) screenshots() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.shots
}

// max_retry_times: looks again, interval apart, until the text shows.
func TestWorkerTapOCRRetries(t *testing.T) {
	ops := DefaultOpsWith(OpsConfig{Vision: visionWorker(t)})
	s := smallScreen(t, corpus.Settings, 1)
	el := s.Elements[1] // a list row
	args, _ := json.Marshal(map[string]any{"text": el.Text, "max_retry_times": 1, "interval": 0.01})

	p := &latePhone{corpusPhone: corpusPhone{s: s}, blank: 2}
	_, err := ops["tap_ocr"].Run(context.Background(), &Task{Driver: p, Args: args})
	require.Error(t, err, "two looks at a blank screen are not enough")
	assert.Equal(t, broker.CodeNotFound, ErrorCode(err))
	assert.Contains(t, err.Error(), "not on screen")
	assert.Equal(t, 2, p.screenshots(), "looked twice")
	assert.Empty(t, p.taps)

	p = &latePhone{corpusPhone: corpusPhone{s: s}, blank: 2}
	args, _ = json.Marshal(map[string]any{"text": el.Text, "max_retry_times": 2, "interval": 0.01})
	out, err := ops["tap_ocr"].Run(context.Background(), &Task{Driver: p, Args: args})
	require.NoError(t, err)
	r := out.Data.(TapTextResult)
	assert.Equal(t, SourceOCR, r.Source)
	assert.Equal(t, 3, p.screenshots(), "found at the third look")
	assert.True(t, r.Confidence > 0 && r.Confidence <= 1, "a worker's confidence: %v", r.Confidence)
	require.Len(t, p.taps, 1)
	assert.True(t, image.Pt(p.taps[0].X, p.taps[0].Y).In(el.Box), "tapped %v, not inside %q's row %v", p.taps[0], el.Text, el.Box)
	assert.Equal(t, device.Point{X: p.taps[0].X, Y: p.taps[0].Y}, *r.Point)
}

// OCR: the tap lands on the words matched, not the middle of their line.
func TestWorkerTapOCRNarrowsToTheWords(t *testing.T) {
	ops := DefaultOpsWith(OpsConfig{Vision: visionWorker(t)})
	s := smallScreen(t, corpus.Settings, 1)
	// The last word of a row of two words or more, drawn once on the screen.
	var want corpus.Word
	var label string
	for _, el := range s.Elements[1:] {
		f := strings.Fields(el.Text)
		if len(f) < 2 || len(f[len(f)-1]) < 4 {
			continue
		}
		n := 0
		for _, w := range s.Words {
			if strings.Contains(w.Text, f[len(f)-1]) {
				n++
				want = w
			}
		}
		if n == 1 {
			label = el.Text
			break
		}
	}
	require.NotEmpty(t, label, "%s has no row whose last word is drawn once: pick another screen", s.Name)

	p := &corpusPhone{s: s}
	args, _ := json.Marshal(TapOCRArgs{Text: want.Text})
	out, err := ops["tap_ocr"].Run(context.Background(), &Task{Driver: p, Args: args})
	require.NoError(t, err)
	r := out.Data.(TapTextResult)
	assert.Equal(t, want.Text, r.Text)
	require.Len(t, p.taps, 1)
	at := image.Pt(p.taps[0].X, p.taps[0].Y)
	assert.True(t, at.In(want.Box.Inset(-4)), "tapped %v, not on %q (%v) of %q", at, want.Text, want.Box, label)
	// bbox is the word's corners, in fractions of the screen.
	b := s.Image.Bounds()
	require.Len(t, r.BBox, 4)
	assert.InDelta(t, float64(want.Box.Min.X)/float64(b.Dx()), r.BBox[0], 0.01)
	assert.InDelta(t, float64(want.Box.Max.X)/float64(b.Dx()), r.BBox[2], 0.01)
	assert.InDelta(t, float64(want.Box.Max.Y)/float64(b.Dy()), r.BBox[3], 0.01)
}

// tap_cv finds an icon cut from the screen and taps its middle; an image that is not on the
// screen is not_found.
func TestWorkerTapCVTapsTheMatch(t *testing.T) {
	ops := DefaultOpsWith(OpsConfig{Vision: visionWorker(t)})
	s := smallScreen(t, corpus.Settings, 1)
	icon := s.Icons[2]
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, corpus.Crop(s.Image, icon.Box)))
	p := &corpusPhone{s: s}
	args := fmt.Sprintf(`{"imagePath":"data:image/png;base64,%s","threshold":0.9}`, base64.StdEncoding.EncodeToString(buf.Bytes()))
	out, err := ops["tap_cv"].Run(context.Background(), &Task{Driver: p, Args: json.RawMessage(args)})
	require.NoError(t, err)
	r := out.Data.(TapCVResult)
	require.Len(t, p.taps, 1)
	mid := image.Pt((icon.Box.Min.X+icon.Box.Max.X)/2, (icon.Box.Min.Y+icon.Box.Max.Y)/2)
	at := image.Pt(p.taps[0].X, p.taps[0].Y)
	assert.True(t, at.In(image.Rectangle{Min: mid, Max: mid.Add(image.Pt(1, 1))}.Inset(-3)), "tapped %v, the icon's middle is %v", at, mid)
	assert.Equal(t, device.Point{X: at.X, Y: at.Y}, *r.Point)
	assert.GreaterOrEqual(t, r.Confidence, 0.9, "the score, at least the threshold")

	// An icon of another screen (its own pattern): not on this one.
	other := smallScreen(t, corpus.Apps, 7)
	buf.Reset()
	require.NoError(t, png.Encode(&buf, corpus.Crop(other.Image, other.Icons[0].Box)))
	args = fmt.Sprintf(`{"imagePath":"%s","threshold":0.95}`, base64.StdEncoding.EncodeToString(buf.Bytes()))
	_, err = ops["tap_cv"].Run(context.Background(), &Task{Driver: p, Args: json.RawMessage(args)})
	require.Error(t, err)
	assert.Equal(t, broker.CodeNotFound, ErrorCode(err), "%v", err)
	assert.Len(t, p.taps, 1, "nothing more was tapped")
}

// peek without a UI tree lists what the vision worker sees, with its confidences; a tree that
// lists elements is used first.
func TestWorkerPeekFallsBackToVision(t *testing.T) {
	v := visionWorker(t)
	p := simIn(t, "com.corral.shop")
	p.HideTree(true)
	out, err := runWith(t, OpsConfig{Vision: v}, "peek", p, `{}`)
	require.NoError(t, err)
	r := out.Data.(PeekResult)
	assert.Equal(t, SourceVision, r.Source)
	assert.Positive(t, r.Elements)
	assert.Contains(t, r.Listing, `[text] "Item 1`)
	assert.NotContains(t, r.Listing, " 1.00\n", "real confidences, not the tree's 1.00")

	p.HideTree(false)
	out, err = runWith(t, OpsConfig{Vision: v}, "peek", p, `{}`)
	require.NoError(t, err)
	assert.Equal(t, SourceUITree, out.Data.(PeekResult).Source)
	assert.Contains(t, out.Data.(PeekResult).Listing, " 1.00")
}
