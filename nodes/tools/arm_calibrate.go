package tools

import (
	"context"
	"fmt"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// ArmCalibrateResult is arm_calibrate's structured result.
type ArmCalibrateResult struct {
	Message           string  `json:"message" jsonschema:"How well the new calibration fits"`
	Probes            int     `json:"probes" jsonschema:"Probe touches the fit used"`
	ResidualP95MM     float64 `json:"residual_p95_mm" jsonschema:"95th percentile of the probes' distance from the fit, millimetres"`
	ValidationErrorMM float64 `json:"validation_error_mm" jsonschema:"How far a check touch, aimed through the new calibration, landed from its target, millimetres"`
	Hint              string  `json:"hint"`
}

// armCalibrate calibrates a rig again: after the phone or the camera moved, or when taps land
// beside their targets.
func armCalibrate() Tool {
	return Define[ActionArgs, ArmCalibrateResult](Tool{Name: "arm_calibrate", Description: "Recalibrate an arm rig: the phone shows the calibration page, the camera finds the screen, " +
		"the finger probes a grid of points and one check touch; the result survives node restarts. " +
		"Run it after the phone or camera moved, or when taps miss their targets. It taps the phone: nothing else may run meanwhile.",
		Timeout: 2 * time.Minute, MaxTimeout: 5 * time.Minute, Progress: true, Short: noParams,
		Needs: []Ability{Need[device.Calibrator]("calibrate where its touches land")},
	}, func(ctx context.Context, t *Task, _ ActionArgs) (Output, error) {
		steps := 0.0
		rep, err := t.Driver.(device.Calibrator).Calibrate(ctx, func(step string) {
			steps++
			if t.Progress != nil {
				t.Progress(steps, 0, step)
			}
		})
		if err != nil {
			return Output{}, err
		}
		return Output{Data: ArmCalibrateResult{
			Message: fmt.Sprintf("calibrated: %d probes, p95 residual %.2f mm, check touch %.2f mm off", rep.Probes, rep.ResidualP95MM, rep.ValidationErrorMM),
			Probes:  rep.Probes, ResidualP95MM: rep.ResidualP95MM, ValidationErrorMM: rep.ValidationErrorMM,
			Hint: "peek to see the screen; taps now land through the new calibration",
		}}, nil
	})
}
