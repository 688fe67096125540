package rig

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/corral-farm/corral/arm/calib"
	"github.com/corral-farm/corral/arm/grbl"
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
	// In the farm meanwhile, so that emergency_stop reaches it (calibrating.go).
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	reg.AddDriver(calibrating{d: d, cancel: cancel})
	// Off again before the rig is served or shown not ready: a registry keeps the first of a serial added twice.
	defer reg.RemoveDevice(serial, "the arm rig's calibration at start ended")
	_, err := d.Calibrate(cctx, func(step string) { log.Debug("arm rig calibration", "step", step) })
	if err != nil && d.heldAfter(err) {
		log.Warn("arm rig halted while calibrating: not calibrated until it is recovered; then arm_calibrate", "err", err)
		return nil
	}
	return err
}

// heldAfter says whether the calibration that failed with err leaves the rig held until a
// person recovers it (arm_recover): an emergency_stop halted it, or its controller raised an
// alarm, which is then held as a halt with the alarm's words, as during arm_calibrate. Trying
// again would clear the alarm with a reset and move the gantry before anyone looked.
func (d *Driver) heldAfter(err error) bool {
	if d.halt.Load() != nil {
		return true
	}
	code, alarmed := 0, false
	var alarm *grbl.Alarm
	if errors.As(err, &alarm) {
		code, alarmed = alarm.Code, true
	}
	if st := d.arm.Status(); st.State == grbl.StateAlarm {
		code, alarmed = max(code, st.Alarm), true
	}
	if !alarmed && !errors.Is(err, ErrAlarm) {
		return false
	}
	why := alarmReason(code)
	d.halt.Store(&why)
	d.haltChanged()
	d.keepHalt(why)
	return true
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
