package test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/vision"
)

// The vision tools through a whole farm with no vision worker: a real NATS server has no
// responder on the vision subjects, and the node says so at once, in vision.ErrNoWorker's words;
// where the UI tree holds the text, the tools need no worker at all.
func TestVisionToolsWithoutWorker(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	serial := f.Devices()[0].Serial
	phone := f.Phone(serial)
	c := f.Client("vision-user")
	hint := "start one with `corral vision"
	require.Contains(t, vision.ErrNoWorker.Error(), hint)

	res := farmtest.Call(t, c, "app_launch", args("serial", serial, "packageName", "com.corral.shop"))
	require.False(t, res.IsError, farmtest.Text(res))

	// The tree holds Item 42 a few swipes down: no worker needed.
	res = farmtest.Call(t, c, "swipe_to_tap_text", args("serial", serial, "text", "Item 42", "interval", 0.05))
	require.False(t, res.IsError, farmtest.Text(res))
	var found struct {
		Text, Source string
		Swipes       int
	}
	farmtest.Structured(t, res, &found)
	assert.Equal(t, "Item 42", found.Text)
	assert.Equal(t, "ui_tree", found.Source)
	assert.Positive(t, found.Swipes)
	res = farmtest.Call(t, c, "back", args("serial", serial))
	require.False(t, res.IsError, farmtest.Text(res))

	// A text the tree lacks: OCR would have to look, and no worker listens. The answer comes
	// before the first of five 10 s retries would (a bound of one interval, not of the
	// machine's speed; ErrNoWorker's words say it came from no responders, not a timeout).
	const interval = 10 * time.Second
	start := time.Now()
	res = farmtest.Call(t, c, "tap_ocr", args("serial", serial, "text", "Checkout", "max_retry_times", 5, "interval", interval.Seconds()))
	took := time.Since(start)
	require.True(t, res.IsError, farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), hint)
	assert.Contains(t, farmtest.Text(res), `"Checkout" is not in the UI tree`)
	assert.Less(t, took, interval, "answered at once, no retries")

	// A screen whose tree lists no text (a game, a canvas): nothing can look without a worker.
	phone.HideTree(true)
	start = time.Now()
	res = farmtest.Call(t, c, "tap_ocr", args("serial", serial, "text", "Item 3", "ignore_NotFoundError", true,
		"max_retry_times", 5, "interval", interval.Seconds()))
	took = time.Since(start)
	require.True(t, res.IsError, farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), hint)
	assert.Less(t, took, interval, "answered at once, no retries")

	res = farmtest.Call(t, c, "tap_cv", args("serial", serial, "imagePath", "data:image/png;base64,"+tinyPNG))
	require.True(t, res.IsError, farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), hint)

	// peek still shows the screen, and says how to get a listing.
	res = farmtest.Call(t, c, "peek", args("serial", serial))
	require.False(t, res.IsError, farmtest.Text(res))
	var peek struct {
		Message  string
		Elements int
		Source   string
	}
	farmtest.Structured(t, res, &peek)
	assert.Zero(t, peek.Elements)
	assert.Empty(t, peek.Source)
	assert.Contains(t, peek.Message, hint)
	data, mime := farmtest.Image(res)
	assert.NotEmpty(t, data)
	assert.Equal(t, "image/jpeg", mime)
}

// tinyPNG is an 8x8 PNG with some texture, base64.
const tinyPNG = "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAOklEQVR4nGP4z8Dwn4HhPwMDAwMDw38GBgYGBgaG/wwMDAwMDAwM/xkYGBgYGBj+MzAwMDAwMDAwAABd7wf5ZR7SuAAAAABJRU5ErkJggg=="
