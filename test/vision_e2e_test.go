//go:build vision

package test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/draw"
	"image/png"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/uitree"
)

// The vision tools end to end with a real worker (Tesseract and OpenCV behind the corral-vision
// micro service) on a simulated phone whose UI tree is hidden, as a game's or a camera view's
// is: tap_ocr reads the screen and taps the right row, tap_cv finds an image cut from the
// screen, peek lists what the worker sees with its confidences.
func TestVisionToolsWithAWorker(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	serial := f.Devices()[0].Serial
	phone := f.Phone(serial)
	c := f.Client("vision-user")

	startVisionWorker(t, f.URL)

	res := farmtest.Call(t, c, "app_launch", args("serial", serial, "packageName", "com.corral.shop"))
	require.False(t, res.IsError, farmtest.Text(res))
	rows := shopRows(t, phone.Source)
	phone.HideTree(true)

	// tap_ocr: the tree lists no text, OCR finds Item 3 and the tap opens its page.
	res = farmtest.Call(t, c, "tap_ocr", args("serial", serial, "text", "Item 3"))
	require.False(t, res.IsError, farmtest.Text(res))
	var tapped struct {
		Text, Source string
		Confidence   float64
		Point        struct{ X, Y int }
	}
	farmtest.Structured(t, res, &tapped)
	assert.Equal(t, "ocr", tapped.Source)
	assert.Equal(t, "Item 3", tapped.Text)
	assert.Greater(t, tapped.Confidence, 0.5)
	assert.Less(t, tapped.Confidence, 1.0)
	assert.True(t, image.Pt(tapped.Point.X, tapped.Point.Y).In(rows["Item 3"]), "%v in %v", tapped.Point, rows["Item 3"])
	assert.True(t, pageShows(t, phone, "A fine simulated item", `text="Item 3"`))

	// tap_cv: Item 5's row (thumbnail, name and price) cut from a screenshot, sent as base64.
	res = farmtest.Call(t, c, "back", args("serial", serial))
	require.False(t, res.IsError, farmtest.Text(res))
	shot, err := phone.Screenshot(context.Background())
	require.NoError(t, err)
	row := rows["Item 5"]
	cut := image.NewRGBA(image.Rect(0, 0, row.Dx(), row.Dy()-4))
	draw.Draw(cut, cut.Bounds(), shot, row.Min, draw.Src)
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, cut))
	res = farmtest.Call(t, c, "tap_cv", args("serial", serial, "imagePath", base64.StdEncoding.EncodeToString(buf.Bytes())))
	require.False(t, res.IsError, farmtest.Text(res))
	var cv struct {
		Confidence float64
		Point      struct{ X, Y int }
	}
	farmtest.Structured(t, res, &cv)
	assert.Greater(t, cv.Confidence, 0.8)
	assert.True(t, image.Pt(cv.Point.X, cv.Point.Y).In(row), "%v in %v: %s", cv.Point, row, farmtest.Text(res))
	assert.True(t, pageShows(t, phone, "A fine simulated item", `text="Item 5"`))

	// peek: the worker's elements, with its confidences.
	res = farmtest.Call(t, c, "back", args("serial", serial))
	require.False(t, res.IsError, farmtest.Text(res))
	res = farmtest.Call(t, c, "peek", args("serial", serial))
	require.False(t, res.IsError, farmtest.Text(res))
	var peek struct {
		Source, Listing string
		Elements        int
	}
	farmtest.Structured(t, res, &peek)
	assert.Equal(t, "vision", peek.Source)
	assert.Positive(t, peek.Elements)
	assert.Contains(t, peek.Listing, `"Item 1`)
	assert.NotContains(t, peek.Listing, " 1.00\n", "real confidences, not the tree's 1.00")
}

// shopRows returns the bounds of the Shop's visible rows by item name, from the UI tree.
func shopRows(t *testing.T, source func(context.Context) (string, error)) map[string]image.Rectangle {
	t.Helper()
	src, err := source(context.Background())
	require.NoError(t, err)
	els, err := uitree.Parse(src)
	require.NoError(t, err)
	rows := map[string]image.Rectangle{}
	for _, e := range els {
		if strings.HasSuffix(e.ResourceID, ":id/item") {
			rows[e.ContentDesc] = e.Bounds
		}
	}
	require.NotEmpty(t, rows)
	return rows
}

// pageShows says whether the phone's hidden tree holds every one of want.
func pageShows(t *testing.T, phone interface {
	HideTree(bool)
	Source(context.Context) (string, error)
}, want ...string) bool {
	t.Helper()
	phone.HideTree(false)
	defer phone.HideTree(true)
	src, err := phone.Source(context.Background())
	require.NoError(t, err)
	for _, w := range want {
		if !strings.Contains(src, w) {
			return false
		}
	}
	return true
}
