package rig

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/corral-farm/corral/arm/calib"
	"github.com/corral-farm/corral/nodes/device"
)

// calibrate readies d to calibrate against rb and area, keeping each calibration in reg when
// reg is a device.CalibrationStore, and gives d its calibration: the one reg kept from before
// (a node restart), or a new one when there is none or it does not fit the rig.
// The rig is first brought to rest with the finger up. When reg is a device.HaltStore, it
// keeps the rig's halts, and a rig it kept halted stays so, uncalibrated if need be: calibrating
// moves the gantry. log is the rig's (rigLog): calibrate does not name it again.
func calibrate(ctx context.Context, reg device.Registry, d *Driver, rb Readback, area Area, log *slog.Logger) error {
	serial := d.info.Serial
	if err := d.rest(ctx); err != nil {
		return err
	}
	if hs, ok := reg.(device.HaltStore); ok {
		if err := d.keepHalts(ctx, hs); err != nil {
			return err
		}
	}
	store, keeps := reg.(device.CalibrationStore)
	var save func(context.Context, *calib.Calibration) error
	if keeps {
		save = func(ctx context.Context, cal *calib.Calibration) error {
			data, err := json.Marshal(cal)
			if err != nil {
				return fmt.Errorf("encode the calibration: %w", err)
			}
			return store.SaveCalibration(ctx, serial, data)
		}
	}
	d.CalibrateFrom(rb, area, save)
	if keeps {
		err := loadCalibration(ctx, store, d)
		if err == nil {
			cal := d.Calibration()
			log.Info("arm rig calibration loaded from the farm", "at", cal.At, "validation_error_mm", cal.ValidationErrMM)
			return nil
		}
		log.Info("arm rig: calibrating", "why", err)
	}
	if d.halt.Load() != nil {
		// Calibrating moves the gantry: not before a person has looked at the rig.
		log.Warn("arm rig halted: not calibrated until it is recovered; then arm_calibrate")
		return nil
	}
	_, err := d.Calibrate(ctx, func(step string) { log.Debug("arm rig calibration", "step", step) })
	return err
}

// loadCalibration gives d the calibration store keeps for it, or says why it cannot.
func loadCalibration(ctx context.Context, store device.CalibrationStore, d *Driver) error {
	data, err := store.LoadCalibration(ctx, d.info.Serial)
	if err != nil {
		return err
	}
	if data == nil {
		return fmt.Errorf("the farm keeps no calibration of it")
	}
	cal, err := calib.Parse(data)
	if err != nil {
		return fmt.Errorf("the calibration the farm keeps is unusable: %w", err)
	}
	if cal.Rig != d.info.Serial {
		return fmt.Errorf("the calibration the farm keeps is of rig %q", cal.Rig)
	}
	return d.SetCalibration(cal)
}
