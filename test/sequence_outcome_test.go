package test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// A sequence refused at its first step ran nothing: its record says refused. One stopped by
// the same kind of mistake at a later step changed the device (its earlier steps ran and are
// not undone): its record keeps the step's code but says failed, since refused promises that
// nothing ran.
func TestSequenceStoppedAfterAStepIsNoRefusal(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	serial := f.Devices()[0].Serial
	c := f.Client("sequencer")

	outcome := func(steps ...map[string]any) (out struct{ Outcome, Code string }) {
		t.Helper()
		res, err := farmtest.TryCall(t, c, "sequence", args("serial", serial, "steps", steps))
		require.NoError(t, err)
		require.True(t, res.IsError, "the sequence succeeded: %s", farmtest.Text(res))
		farmtest.Structured(t, farmtest.MustCall(t, c, "get_latest_task", args("anyTool", true)), &out)
		return out
	}
	offScreen := map[string]any{"tool_name": "tap_abs_xy", "args": map[string]any{"x": 50000, "y": 1}}

	first := outcome(offScreen, map[string]any{"tool_name": "home"})
	assert.Equal(t, "refused", first.Outcome, "nothing ran")
	assert.Equal(t, "bad_input", first.Code)

	later := outcome(map[string]any{"tool_name": "home"}, offScreen)
	assert.Equal(t, "failed", later.Outcome, "step 1 ran: no refusal")
	assert.Equal(t, "bad_input", later.Code, "the step's code, the caller's mistake")
}
