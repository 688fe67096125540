package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/nodes/device"
)

// runMarked runs tool with args on d in a node that keeps screenshots in saver.
func runMarked(t *testing.T, saver ScreenshotSaver, d device.Driver, tool, args string) map[string]any {
	t.Helper()
	out, err := newEnv(OpsConfig{Screenshots: saver}).Ops[tool].Run(context.Background(), &Task{ID: "t_1", Driver: d, Args: json.RawMessage(args)})
	require.NoError(t, err, tool)
	var res map[string]any
	require.NoError(t, json.Unmarshal(mustJSON(t, out.Data), &res))
	return res
}

// markedImage decodes the one marked screenshot a result names.
func markedImage(t *testing.T, saver *memSaver, res map[string]any) image.Image {
	t.Helper()
	names, _ := res["markedScreenshots"].([]any)
	require.Len(t, names, 1, "%v", res)
	img, err := jpeg.Decode(bytes.NewReader(saver.saved[names[0].(string)]))
	require.NoError(t, err)
	return img
}

// isMark says whether c is the marks' magenta, as JPEG keeps it.
func isMark(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return r>>8 > 190 && g>>8 < 90 && b>>8 > 190
}

// At the point a relative (x, y) lands on a 540-wide marked screen of a 1080x2400 phone.
func at(x, y float64) (int, int) { return scale(x, 1080) / 2, scale(y, 2400) / 2 }

// pre_mark_operation: the screen is captured before the gesture, scaled to markWidth, and the
// gesture drawn on it in the marks' colour: a tap's point, a swipe's path from start to end,
// a bbox's edges; the rest of the screen as it was. The result names the mark.
func TestPreMarkDrawsTheGesture(t *testing.T) {
	saver := &memSaver{}
	d := newAbled()
	res := runMarked(t, saver, d, "tap_xy", `{"x":0.25,"y":0.75,"pre_mark_operation":true}`)
	assert.Equal(t, []string{"ScreenSize", "ScreenSize", "Screenshot", "Tap"}, d.Calls(), "the screen is captured before the tap")
	assert.Contains(t, res["message"], "tapped at (0.250, 0.750)")
	img := markedImage(t, saver, res)
	assert.Equal(t, markWidth, img.Bounds().Dx())
	x, y := at(0.25, 0.75)
	assert.True(t, isMark(img.At(x, y)), "the tapped pixel is %v", img.At(x, y))
	assert.True(t, isMark(img.At(x+markRing, y)), "the ring around it")
	assert.False(t, isMark(img.At(x+markRing/2, y+markRing/2)), "inside the ring, off the cross")
	assert.False(t, isMark(img.At(at(0.75, 0.25))), "far from the tap")
	assert.Equal(t, 1, saver.marked)

	res = runMarked(t, saver, newAbled(), "swipe", `{"from_x":0.2,"from_y":0.5,"to_x":0.8,"to_y":0.5,"pre_mark_operation":true}`)
	img = markedImage(t, saver, res)
	for _, p := range [][2]float64{{0.2, 0.5}, {0.5, 0.5}, {0.8, 0.5}} {
		assert.True(t, isMark(img.At(at(p[0], p[1]))), "the swipe's path at %v", p)
	}
	fromX, _ := at(0.2, 0.5)
	toX, y := at(0.8, 0.5)
	assert.True(t, isMark(img.At(fromX-4, y)), "the dot at its start")
	assert.True(t, isMark(img.At(toX-16, y-8)) && isMark(img.At(toX-16, y+8)), "the arrow head at its end")
	assert.False(t, isMark(img.At(toX-16, y+16)), "off the arrow head")
	assert.False(t, isMark(img.At(at(0.5, 0.7))), "off the swipe's path")

	res = runMarked(t, saver, newAbled(), "tap", `{"bbox":[0.1,0.1,0.9,0.3],"pre_mark_operation":true}`)
	img = markedImage(t, saver, res)
	assert.True(t, isMark(img.At(at(0.5, 0.1))), "the bbox's top edge")
	assert.True(t, isMark(img.At(at(0.1, 0.2))), "the bbox's left edge")
	assert.True(t, isMark(img.At(at(0.5, 0.2))), "its centre, tapped")
	assert.False(t, isMark(img.At(at(0.3, 0.15))), "inside the bbox, off the marks")

	res = runMarked(t, saver, newAbled(), "input", `{"text":"hi","pre_mark_operation":true}`)
	assert.NotContains(t, res, "markedScreenshots", "no gesture, no mark")
}

// A mark that cannot be made or kept is counted and the action goes on; a node without a
// store captures nothing.
func TestPreMarkFailuresNeverFailTheAction(t *testing.T) {
	broken := &brokenScreen{fakeAbled: newAbled()}
	saver := &memSaver{}
	res := runMarked(t, saver, broken, "tap_xy", `{"x":0.5,"y":0.5,"pre_mark_operation":true}`)
	assert.NotContains(t, res, "markedScreenshots")
	require.Len(t, saver.failed, 1)
	assert.ErrorContains(t, saver.failed[0], "capture the screen to mark: no screen")

	full := &memSaver{refuse: errors.New("the bucket is full")}
	res = runMarked(t, full, newAbled(), "tap_xy", `{"x":0.5,"y":0.5,"pre_mark_operation":true}`)
	assert.NotContains(t, res, "markedScreenshots")
	assert.Len(t, full.failed, 1)

	d := newAbled()
	out, err := DefaultOps()["tap_xy"].Run(context.Background(), &Task{ID: "t_1", Driver: d, Args: json.RawMessage(`{"x":0.5,"y":0.5,"pre_mark_operation":true}`)})
	require.NoError(t, err)
	assert.NotContains(t, string(mustJSON(t, out.Data)), "markedScreenshots")
	assert.NotContains(t, d.Calls(), "Screenshot", "nowhere to keep a mark: none is made")
}

type brokenScreen struct{ *fakeAbled }

func (brokenScreen) Screenshot(context.Context) (image.Image, error) {
	return nil, errors.New("no screen")
}

// A task keeps at most maxMarks marks: the first ones and its last gesture's.
func TestPreMarkKeepsTheLastGesture(t *testing.T) {
	saver := &memSaver{}
	task := &Task{ID: "t_1", Driver: newAbled(), Env: newEnv(OpsConfig{Screenshots: saver})}
	a := &acting{Behaviour: Behaviour{PreMarkOperation: true}}
	s := device.Size{Width: 1080, Height: 2400}
	for i := range maxMarks + 3 {
		a.mark(context.Background(), task, gesture{from: device.Point{X: 100 * i, Y: 100}, taps: 1}, s)
	}
	require.Len(t, a.marks, maxMarks)
	names := keepMarks(context.Background(), task, a.marks)
	require.Len(t, names, maxMarks)
	last, err := jpeg.Decode(bytes.NewReader(saver.saved[names[maxMarks-1]]))
	require.NoError(t, err)
	assert.True(t, isMark(last.At(100*(maxMarks+2)/2, 50)), "the last mark is the last gesture's")
}
