package rig

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/corral-farm/corral/arm/calib"
	"github.com/corral-farm/corral/internal/geom"
	"github.com/corral-farm/corral/nodes/device"
)

// Readback is the phone's side of a calibration: it shows the calibration page (which the
// camera finds the screen by) and tells where each touch landed, in screen pixels. The twin
// is one; on a real phone it is the calibration web page, or adb getevent where there is a
// cable.
type Readback interface {
	ShowCalibration(ctx context.Context) (touches <-chan geom.Point, size device.Size, stop func(), err error)
}

// Area is a rectangle of the gantry in millimetres: where the screen roughly lies, measured
// with a ruler to within a few millimetres. Calibration probes well inside it.
type Area struct{ Min, Max geom.Point }

func (a Area) check() error {
	if !finite(a.Min.X) || !finite(a.Min.Y) || !finite(a.Max.X) || !finite(a.Max.Y) ||
		a.Max.X-a.Min.X < 20 || a.Max.Y-a.Min.Y < 20 {
		return fmt.Errorf("screen area %v-%v mm: give the screen's corners under the gantry, at least 20 mm apart", a.Min, a.Max)
	}
	return nil
}

// Calibration settings.
const (
	probeGrid    = 3                      // probes per side of the grid
	probeInset   = 0.2                    // of the rough area kept clear on each side
	feelTimeout  = 3 * time.Second        // for a probe's touch to be reported, at least (feel.go)
	probeHold    = 100 * time.Millisecond // a firm touch
	maxResidual  = 1.5                    // mm: a worse fit means a probe was misread
	calibVersion = 1
)

// calibrationSource is where the rig calibrates against and keeps the result (CalibrateFrom).
type calibrationSource struct {
	readback Readback
	area     Area
	save     func(ctx context.Context, cal *calib.Calibration) error
}

// CalibrateFrom says what Calibrate calibrates against: the phone's readback and where its
// screen roughly lies; save (optional) keeps each new calibration.
func (d *Driver) CalibrateFrom(rb Readback, area Area, save func(ctx context.Context, cal *calib.Calibration) error) {
	d.source.Store(&calibrationSource{readback: rb, area: area, save: save})
}

// Calibrate calibrates the rig again against what CalibrateFrom set, and keeps the result:
// the device.Calibrator of the arm_calibrate tool.
func (d *Driver) Calibrate(ctx context.Context, progress func(step string)) (device.CalibrationReport, error) {
	src := d.source.Load()
	if src == nil {
		return device.CalibrationReport{}, d.wrap("calibrate", ErrNoReadback, "its taps land through the calibration it has, if any; "+
			"to calibrate it again, name its calibration readback in its rigs file (readback: the calibration page's event stream, docs/arm.md)")
	}
	cal, err := d.CalibrateWith(ctx, src.readback, src.area, progress)
	if err != nil {
		return device.CalibrationReport{}, err
	}
	if src.save != nil {
		if err := src.save(ctx, cal); err != nil {
			return device.CalibrationReport{}, d.wrap("calibrate", err, "the rig uses the new calibration until the node restarts; calibrate again once the farm's KV takes it")
		}
	}
	return device.CalibrationReport{Probes: cal.Probes, ResidualP95MM: cal.ResidualP95MM, ValidationErrorMM: cal.ValidationErrMM}, nil
}

// CalibrateWith calibrates the rig: it finds the screen in the camera's frame while the phone
// shows the calibration page, taps a grid of probes inside area and reads back where each
// landed, fits the screen → gantry transform, and checks it with one more tap between the
// probes, whose error it reports. progress hears each step. The rig keeps the result.
func (d *Driver) CalibrateWith(ctx context.Context, rb Readback, area Area, progress func(string)) (*calib.Calibration, error) {
	const op = "calibrate"
	if progress == nil {
		progress = func(string) {}
	}
	if err := area.check(); err != nil {
		return nil, d.wrap(op, fmt.Errorf("%w: %w", ErrBadInput, err), "")
	}
	if err := d.ready(op); err != nil {
		return nil, err // halted or in alarm: said before the page shows, not as a probe's failure
	}
	touches, size, stop, err := rb.ShowCalibration(ctx)
	if err != nil {
		return nil, d.wrap(op, err, "open the calibration page on the phone")
	}
	defer stop()
	progress("calibration page shown; finding the screen in the camera's frame")
	quad, err := d.findScreen(ctx, pageTimeout)
	if err != nil {
		return nil, err
	}
	probesMM := grid(area)
	var px, mm []geom.Point
	for i, at := range probesMM {
		progress(fmt.Sprintf("probe %d of %d at (%.1f, %.1f) mm", i+1, len(probesMM), at.X, at.Y))
		got, err := d.probe(ctx, touches, at)
		if err != nil {
			return nil, d.probeFailed(op, fmt.Sprintf("probe %d at (%.1f, %.1f) mm", i+1, at.X, at.Y), err,
				"check that the screen area covers the screen and that the finger reaches the glass")
		}
		px, mm = append(px, got), append(mm, at)
	}
	fit, residuals, err := calib.FitGantry(px, mm)
	if err != nil {
		return nil, d.wrap(op, err, "calibrate again; if it fails twice, check that the phone does not move under the finger")
	}
	cal := &calib.Calibration{Version: calibVersion, Rig: d.info.Serial, ScreenW: size.Width, ScreenH: size.Height,
		Quad: quad, ScreenToGantry: fit, ResidualP95MM: p95(residuals), Probes: len(px), At: time.Now().UTC()}
	if cal.ResidualP95MM > maxResidual {
		return nil, d.wrap(op, fmt.Errorf("the probes fit badly: p95 residual %.2f mm (at most %.1f)", cal.ResidualP95MM, maxResidual),
			"the phone may have moved, or the finger slips on the glass")
	}
	// The check: a point between the probes, tapped through the new calibration.
	want := geom.Point{X: float64(size.Width) * 0.62, Y: float64(size.Height) * 0.41}
	at, err := cal.ToGantry(want)
	if err != nil {
		return nil, d.wrap(op, err, "")
	}
	progress("validation tap")
	got, err := d.probe(ctx, touches, at)
	if err != nil {
		return nil, d.probeFailed(op, "validation tap", err, "")
	}
	cal.ValidationErrMM = math.Hypot(got.X-want.X, got.Y-want.Y) * cal.MMPerPixel()
	if err := d.SetCalibration(cal); err != nil {
		return nil, err
	}
	progress(fmt.Sprintf("calibrated: %d probes, p95 residual %.2f mm, validation error %.2f mm", cal.Probes, cal.ResidualP95MM, cal.ValidationErrMM))
	return cal, nil
}

// probe taps the gantry position at and waits for the touch it makes to be reported.
func (d *Driver) probe(ctx context.Context, touches <-chan geom.Point, at geom.Point) (geom.Point, error) {
	for drained := false; !drained; { // a stray touch from before must not count
		select {
		case _, open := <-touches:
			if !open {
				return geom.Point{}, errReadbackEnded
			}
		default:
			drained = true
		}
	}
	err := func() error {
		d.gesture.Lock()
		defer d.gesture.Unlock()
		if err := d.ready("probe"); err != nil {
			return err
		}
		if err := d.answering(ctx, "probe", answerWait); err != nil {
			return err
		}
		if err := d.restAbandoned(ctx, "probe"); err != nil {
			return err
		}
		err := d.touch(ctx, d.arm, at, probeHold)
		if err == nil {
			err = d.arm.Barrier(ctx)
		}
		if err == nil {
			return nil
		}
		// Not the GRBL line it was cut at, when it was stopped on purpose or went silent.
		cause, hint := d.afterFailure(ctx, "probe", err)
		if hint != "" {
			return d.wrap("probe", cause, hint) // said whole, as the rig's refusals are (probeFailed)
		}
		return cause
	}()
	if err != nil {
		return geom.Point{}, err
	}
	return d.feel(ctx, touches)
}

// probeFailed is the error of a calibration whose probe what failed: a halt, an alarm or a stop
// (abort, emergency_stop) as the rig says it, without hint, which is for a probe that ran and
// was not felt.
func (d *Driver) probeFailed(op, what string, err error, hint string) error {
	var de *device.Error
	var stopped stoppedMidGesture
	switch {
	case errors.As(err, &stopped):
		return d.wrap(op, fmt.Errorf("%s: %w", what, err), "")
	case errors.As(err, &de):
		return err // the rig's refusal (halted, in alarm) says it all
	case errors.Is(err, errReadbackEnded):
		hint = "keep the calibration page open on the phone while the rig calibrates, then calibrate again (arm_calibrate)"
	}
	return d.wrap(op, fmt.Errorf("%s: %w", what, err), hint)
}

// grid spreads probeGrid² probes over the inner part of area.
func grid(a Area) []geom.Point {
	var out []geom.Point
	for j := range probeGrid {
		for i := range probeGrid {
			fx := probeInset + (1-2*probeInset)*float64(i)/float64(probeGrid-1)
			fy := probeInset + (1-2*probeInset)*float64(j)/float64(probeGrid-1)
			out = append(out, geom.Point{X: a.Min.X + fx*(a.Max.X-a.Min.X), Y: a.Min.Y + fy*(a.Max.Y-a.Min.Y)})
		}
	}
	return out
}

func p95(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	slices.Sort(s)
	return s[int(math.Ceil(0.95*float64(len(s))))-1]
}
