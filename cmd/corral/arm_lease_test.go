package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// armFarm is a farm of one node driving the digital twin of an arm rig (four times real
// speed), and the rig's serial.
func armFarm(t *testing.T) (*farmtest.Farm, string) {
	t.Helper()
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true, Platforms: platforms()})
	tw := f.StartArmTwin("n1", 5, 4)
	return f, tw.Phone.Info().Serial
}

// A rig that cannot move (halted by emergency_stop) refuses gestures as unhealthy, and a key it
// has not as bad_input: refusals, not driver_error failures that count against the rig and
// trip CorralToolErrors. corral arm calibrate on it says what the rig said, without asking
// whether it is an arm rig and free.
func TestHaltedRigRefusesGesturesAsRefusals(t *testing.T) {
	f, serial := armFarm(t)
	c := f.Client("agent")
	farmtest.MustCall(t, f.Client("operator"), "emergency_stop", map[string]any{"serial": serial})

	res := farmtest.Call(t, c, "tap", map[string]any{"serial": serial, "bbox": []float64{0.4, 0.4, 0.6, 0.6}})
	require.True(t, res.IsError, farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "tap on "+serial+" refused (unhealthy)")
	assert.Contains(t, farmtest.Text(res), "the rig is halted")
	res = farmtest.Call(t, c, "press_button", map[string]any{"serial": serial, "button": "VOLUME_UP"})
	require.True(t, res.IsError, farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "press_button on "+serial+" refused (bad_input)")
	assert.Contains(t, farmtest.Text(res), "the arm has no such key")

	var err error
	out := captureOutput(t, func() {
		err = runArmCalibrate(t.Context(), []string{"--gateway", f.Gateway().MCPURL, "--log-level", "error", serial})
	})
	require.Error(t, err, out)
	assert.Contains(t, err.Error(), "arm_calibrate on "+serial+" refused (unhealthy)")
	assert.Contains(t, err.Error(), "calibrate: the rig is halted")
	assert.NotContains(t, err.Error(), "an arm rig, and free")
}

// corral arm recover and calibrate act on a rig the caller holds with its lease from
// $CORRAL_LEASE or --lease-file, never from the command line, and never print it; without it
// the refusal says what the holder and an operator can do.
func TestArmCommandsTakeTheHoldersLease(t *testing.T) {
	f, serial := armFarm(t)
	var held struct {
		Lease struct {
			Handle string `json:"handle"`
		} `json:"lease"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, f.Client("holder"), "acquire_device", map[string]any{"serial": serial}), &held)
	handle := held.Lease.Handle
	require.NotEmpty(t, handle)
	farmtest.MustCall(t, f.Client("operator"), "emergency_stop", map[string]any{"serial": serial})
	gw := []string{"--gateway", f.Gateway().MCPURL, "--log-level", "error"}
	run := func(cmd func([]string) error, args ...string) (string, error) {
		var err error
		out := captureOutput(t, func() { err = cmd(append(append([]string(nil), gw...), args...)) })
		if err != nil {
			assert.NotContains(t, err.Error(), handle, "the lease handle printed")
		}
		assert.NotContains(t, out, handle, "the lease handle printed")
		return out, err
	}
	recoverRig := func(args []string) error { return runArmRecover(t.Context(), args) }
	calibrateRig := func(args []string) error { return runArmCalibrate(t.Context(), args) }

	_, err := run(recoverRig, serial)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "refused (busy)")
	assert.Contains(t, err.Error(), "$CORRAL_LEASE or --lease-file FILE")
	assert.Contains(t, err.Error(), "corral release "+serial+" --force")

	_, err = run(recoverRig, "--lease", handle, serial)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "takes no value on the command line")

	t.Setenv("CORRAL_LEASE", handle)
	out, err := run(recoverRig, serial)
	require.NoError(t, err, out)
	assert.Contains(t, out, "recovered")

	t.Setenv("CORRAL_LEASE", "")
	file := filepath.Join(t.TempDir(), "lease")
	require.NoError(t, os.WriteFile(file, []byte(handle+"\n"), 0o600))
	out, err = run(calibrateRig, "--lease-file", file, serial)
	require.NoError(t, err, out)
	assert.Contains(t, out, "calibrated")

	require.NoError(t, os.WriteFile(file, []byte("not-the-handle\n"), 0o600))
	_, err = run(calibrateRig, "--lease-file", file, serial)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "an arm rig, and free")
}
