package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// corral arm calibrate checks its serial before it prints the calibration's instructions: a
// serial that is no device, or no rig, is refused without them.
func TestArmCalibrateChecksTheSerialFirst(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	phone := f.Devices()[0].Serial
	for serial, want := range map[string]string{
		"nosuch": "nosuch",
		phone:    phone + " cannot calibrate: it is not an arm rig (its platform is android); corral devices --platform arm lists the rigs",
	} {
		var err error
		out := captureOutput(t, func() {
			err = runArmCalibrate(t.Context(), []string{"--gateway", f.Gateway().MCPURL, "--log-level", "error", serial})
		})
		require.Error(t, err, serial)
		assert.Contains(t, err.Error(), want)
		assert.NotContains(t, out, "Calibrating", serial)
	}
}
