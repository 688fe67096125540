package calib

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/corral-farm/corral/internal/geom"
)

// Version is the version of the Calibration document this package writes and reads.
const Version = 1

// Bounds Validate holds a calibration to.
const (
	// MaxResidualMM is the worst p95 residual of the probes a calibration may have.
	MaxResidualMM = 1.5
	// MaxValidationMM is the worst error of the validation tap a calibration may have.
	MaxValidationMM = 3
	// MaxAnisotropy is how much more a calibration may stretch one direction than another
	// (pixels are square; a worse ratio means misread probes).
	MaxAnisotropy = 1.3
	// marginPx is how far outside the screen ToGantry still accepts a point, in pixels.
	marginPx = 4
)

var (
	// ErrBadCalibration says a calibration is corrupt, of another version, or not sane.
	ErrBadCalibration = errors.New("calib: bad calibration")
	// ErrOffScreen says a point to tap is outside the screen: the gantry's soft limits.
	ErrOffScreen = errors.New("calib: off the screen")
)

// Calibration is what a rig knows about where its phone is.
type Calibration struct {
	Version int    `json:"version"`
	Rig     string `json:"rig"`
	// ScreenW and ScreenH are the phone's screen in pixels.
	ScreenW int `json:"screen_w"`
	ScreenH int `json:"screen_h"`
	// Quad is the screen's corners in camera pixels: top-left, top-right, bottom-right,
	// bottom-left.
	Quad [4]geom.Point `json:"quad"`
	// ScreenToGantry maps screen pixels to gantry millimetres.
	ScreenToGantry geom.Affine `json:"screen_to_gantry"`
	// ResidualP95MM is the 95th percentile of the probes' residuals.
	ResidualP95MM float64 `json:"residual_p95_mm"`
	// ValidationErrMM is the error of a tap made through the calibration, checked.
	ValidationErrMM float64 `json:"validation_err_mm"`
	// Probes is how many probe taps the fit used.
	Probes int       `json:"probes"`
	At     time.Time `json:"at"`
}

// Parse reads a Calibration document and validates it.
func Parse(data []byte) (*Calibration, error) {
	var head struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%w: not a calibration document: %w: calibrate the rig again", ErrBadCalibration, err)
	}
	if head.Version == nil {
		return nil, fmt.Errorf("%w: the document has no version: calibrate the rig again", ErrBadCalibration)
	}
	if *head.Version != Version {
		return nil, fmt.Errorf("%w: version %d, this Corral reads version %d: calibrate the rig again", ErrBadCalibration, *head.Version, Version)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Calibration
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%w: %w: calibrate the rig again", ErrBadCalibration, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: data after the document: calibrate the rig again", ErrBadCalibration)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Validate checks that c makes sense: this version, a screen, a convex quad, a transform
// that scales both directions alike at a plausible pitch, residuals within bounds.
func (c Calibration) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s: calibrate the rig again", ErrBadCalibration, fmt.Sprintf(format, a...))
	}
	if c.Version != Version {
		return bad("version %d, want %d", c.Version, Version)
	}
	if c.ScreenW <= 0 || c.ScreenH <= 0 || c.ScreenW > 20000 || c.ScreenH > 20000 {
		return bad("a %d×%d screen", c.ScreenW, c.ScreenH)
	}
	for i := 0; i < 4; i++ {
		a, b, d := c.Quad[i], c.Quad[(i+1)%4], c.Quad[(i+2)%4]
		e1, e2 := b.Sub(a), d.Sub(b)
		if !a.Finite() || !(e1.X*e2.Y-e1.Y*e2.X > 0) {
			return bad("the screen's corners in the camera, %v, are not a convex quad in the order top-left, top-right, bottom-right, bottom-left", c.Quad)
		}
	}
	for _, v := range c.ScreenToGantry {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return bad("the screen → gantry transform is not finite")
		}
	}
	hi, lo := c.ScreenToGantry.SingularValues()
	if !(lo > 0) || hi/lo > MaxAnisotropy {
		return bad("the screen → gantry transform stretches one direction %.2f times another (at most %.1f)", hi/lo, MaxAnisotropy)
	}
	if mm := c.MMPerPixel(); mm < 0.005 || mm > 1 {
		return bad("%.4f mm a pixel is not a phone's screen", mm)
	}
	if !(c.ResidualP95MM >= 0 && c.ResidualP95MM <= MaxResidualMM) {
		return bad("the probes' p95 residual is %.2f mm (at most %.1f)", c.ResidualP95MM, MaxResidualMM)
	}
	if !(c.ValidationErrMM >= 0 && c.ValidationErrMM <= MaxValidationMM) {
		return bad("the validation tap was %.2f mm off (at most %.1f)", c.ValidationErrMM, float64(MaxValidationMM))
	}
	if c.Probes < 3 {
		return bad("%d probes (at least 3)", c.Probes)
	}
	return nil
}

// MMPerPixel is the screen's pixel pitch under the gantry, in mm.
func (c Calibration) MMPerPixel() float64 { return math.Sqrt(math.Abs(c.ScreenToGantry.Det())) }

// ToGantry is where the gantry must go to touch the screen pixel p. A point off the screen
// (by more than a few pixels) is refused with ErrOffScreen: the soft limits.
func (c Calibration) ToGantry(p geom.Point) (geom.Point, error) {
	w, h := float64(c.ScreenW), float64(c.ScreenH)
	if !p.Finite() || p.X < -marginPx || p.Y < -marginPx || p.X > w+marginPx || p.Y > h+marginPx {
		return geom.Point{}, fmt.Errorf("%w: %v is outside the %d×%d screen: give a point on it", ErrOffScreen, p, c.ScreenW, c.ScreenH)
	}
	return c.ScreenToGantry.Apply(p), nil
}

// ToScreen is the screen pixel under the gantry position mm (NaN when the calibration is
// singular, which Validate refuses).
func (c Calibration) ToScreen(mm geom.Point) geom.Point {
	inv, err := c.ScreenToGantry.Inverse()
	if err != nil {
		return geom.Point{X: math.NaN(), Y: math.NaN()}
	}
	return inv.Apply(mm)
}

// Limits are the corners of the gantry rectangle the screen covers: the soft limits.
func (c Calibration) Limits() (min, max geom.Point) {
	w, h := float64(c.ScreenW), float64(c.ScreenH)
	min = geom.Point{X: math.Inf(1), Y: math.Inf(1)}
	max = geom.Point{X: math.Inf(-1), Y: math.Inf(-1)}
	for _, p := range []geom.Point{{X: 0, Y: 0}, {X: w, Y: 0}, {X: w, Y: h}, {X: 0, Y: h}} {
		q := c.ScreenToGantry.Apply(p)
		min.X, min.Y = math.Min(min.X, q.X), math.Min(min.Y, q.Y)
		max.X, max.Y = math.Max(max.X, q.X), math.Max(max.Y, q.Y)
	}
	return min, max
}
