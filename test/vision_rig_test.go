//go:build vision

package test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/nodes/tools"
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

// unlock_phone on an arm rig works by sight, as PhysiClaw's does: the finger taps a dark
// screen awake, the vision worker finds the PIN pad in the camera frame (it reads few of the
// digits through the camera, but sees every key's disc), and the finger taps the node's
// passcode on it. A wrong passcode is said to be wrong, and neither answer repeats a passcode.
func TestUnlockPhoneOnAnArmRig(t *testing.T) {
	book, err := tools.ParsePasscodes([]byte(`"*": "` + sim.DefaultPasscode + `"`))
	require.NoError(t, err)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Passcodes: book,
		Platforms: []device.Platform{android.Platform(), rig.Platform()}})
	c := f.Client("arm-unlock")
	good := f.StartArmTwin("n1", 5, 4)
	require.NoError(t, good.Sleep(t.Context()))

	// No vision worker yet: the screen is tapped awake, but the PIN pad cannot be found, so no
	// key is tapped.
	n := len(good.Phone.InputLog())
	res := farmtest.Call(t, c, "unlock_phone", args("serial", good.Phone.Info().Serial))
	require.True(t, res.IsError, farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "corral vision")
	assert.False(t, good.Asleep(), "the screen was not tapped awake")
	assert.Empty(t, good.Phone.InputLog()[n:], "a key was tapped without a vision worker")

	startVisionWorker(t, f.URL)
	other, err := twin.Start(twin.Options{Seed: 6, Speed: 4, Phone: []sim.Option{sim.WithPasscode("2580")}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = other.Close() })
	f.ServeArmTwin("n1", other)
	locked := func(tw *twin.Twin) bool {
		st, err := tw.Phone.Status(t.Context())
		require.NoError(t, err)
		return st["locked"] == "true"
	}

	res = farmtest.Call(t, c, "unlock_phone", args("serial", good.Phone.Info().Serial))
	require.False(t, res.IsError, farmtest.Text(res))
	var got tools.UnlockResult
	farmtest.Structured(t, res, &got)
	assert.True(t, got.Unlocked && got.Verified && got.PasscodeEntered, "%+v", got)
	assert.False(t, locked(good), "the phone under the arm is still locked")
	assert.False(t, good.Asleep(), "the screen is still dark")
	assert.NotContains(t, farmtest.Text(res), sim.DefaultPasscode)

	// Unlocked already: nothing is touched.
	n = len(good.Phone.InputLog())
	res = farmtest.Call(t, c, "unlock_phone", args("serial", good.Phone.Info().Serial))
	require.False(t, res.IsError, farmtest.Text(res))
	farmtest.Structured(t, res, &got)
	assert.True(t, got.Unlocked && !got.PasscodeEntered, "%+v", got)
	assert.Empty(t, good.Phone.InputLog()[n:], "unlock_phone touched an unlocked phone")

	// The node's passcode is not this phone's.
	require.NoError(t, other.Phone.PressKey(t.Context(), "POWER"))
	res = farmtest.Call(t, c, "unlock_phone", args("serial", other.Phone.Info().Serial))
	require.True(t, res.IsError, farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "still locked: wrong passcode?")
	assert.NotContains(t, farmtest.Text(res), sim.DefaultPasscode)
	assert.True(t, locked(other))
}
