//go:build vision

package test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// An arm rig sees through its camera: peek lists what a real vision worker reads in the
// rectified camera frame, and tap_ocr finds an app's name there and taps it with the finger,
// which opens the app on the phone under the arm.
func TestVisionOnAnArmRig(t *testing.T) {
	f, tw, serial := armFarm(t)
	startVisionWorker(t, f.URL)
	c := f.Client("arm-vision")

	res := farmtest.Call(t, c, "peek", args("serial", serial))
	require.False(t, res.IsError, farmtest.Text(res))
	var peek struct {
		Source, Listing string
		Elements        int
	}
	farmtest.Structured(t, res, &peek)
	assert.Equal(t, "vision", peek.Source)
	assert.Positive(t, peek.Elements)
	assert.Contains(t, peek.Listing, "Notes", "peek on the camera frame: %s", peek.Listing)

	res = farmtest.Call(t, c, "tap_ocr", args("serial", serial, "text", "Notes"))
	require.False(t, res.IsError, farmtest.Text(res))
	farmtest.Eventually(t, 10*time.Second, func() bool {
		fg, err := tw.Phone.ForegroundApp(t.Context())
		return err == nil && fg == "com.corral.notes"
	}, "the notes app open after tap_ocr through the camera and the finger")
}
