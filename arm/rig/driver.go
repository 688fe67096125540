package rig

import (
	"context"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corral-farm/corral/arm/calib"
	"github.com/corral-farm/corral/arm/grbl"
	"github.com/corral-farm/corral/internal/geom"
	"github.com/corral-farm/corral/nodes/device"
)

// Camera is where the rig's frames come from (arm/camera's sources and simulated camera).
type Camera interface {
	Frame(ctx context.Context) (image.Image, error)
	Close() error
}

// Config describes a rig beyond its links: what to call it and how its finger moves.
type Config struct {
	// Serial names the device in the farm (the rig's name).
	Serial string `json:"serial"`
	// Model is the phone under the arm, as the registry shows it (default "iPhone").
	Model string `json:"model,omitempty"`
	// Finger is the stylus (default: a solenoid on the spindle PWM).
	Finger Finger `json:"finger,omitempty"`
	// MaxFeed caps a swipe's speed in mm/min (default 12000, 200 mm/s): a flick asked for
	// faster is slower, and says so in the log.
	MaxFeed float64 `json:"max_feed,omitempty"`
	// TapHold is how long a plain tap touches (default 80 ms): long enough for a capacitive
	// screen to register, short of a long press.
	TapHold time.Duration `json:"tap_hold,omitempty"`
	// ScreenSettle is how long after a gesture's finger-up the phone takes to show its answer
	// (default DefaultScreenSettle, settle.go): a screenshot sooner waits out the rest.
	ScreenSettle time.Duration `json:"screen_settle,omitempty"`
	// Clipboard is the helper that puts text on the phone's clipboard (send_to_clipboard);
	// nil: the rig has none, and says so.
	Clipboard Clipboard `json:"-"`
	// Tags are the device's tags (device.Info): "sim" for a digital twin, so that a policy's
	// tags and a node's cleanup of its simulated devices see it as simulated; a real rig has
	// none, and no rigs-file key sets them.
	Tags []string `json:"-"`
}

func (c Config) withDefaults() Config {
	if c.Model == "" {
		c.Model = "iPhone"
	}
	if c.MaxFeed == 0 {
		c.MaxFeed = 12000
	}
	if c.TapHold == 0 {
		c.TapHold = 80 * time.Millisecond
	}
	if c.ScreenSettle == 0 {
		c.ScreenSettle = DefaultScreenSettle
	}
	c.Finger = c.Finger.withDefaults()
	return c
}

func (c Config) check() error {
	var errs []error
	if c.Serial == "" {
		errs = append(errs, errors.New("serial: name the rig"))
	}
	if !finite(c.MaxFeed) || c.MaxFeed <= 0 {
		errs = append(errs, fmt.Errorf("max_feed %g mm/min must be positive", c.MaxFeed))
	}
	if c.TapHold < 10*time.Millisecond || c.TapHold > time.Second {
		errs = append(errs, fmt.Errorf("tap_hold %s must be between 10ms and 1s", c.TapHold))
	}
	if c.ScreenSettle < 0 || c.ScreenSettle > 5*time.Second {
		errs = append(errs, fmt.Errorf("screen_settle %s must be between 0 (the default, %s) and 5s", c.ScreenSettle, DefaultScreenSettle))
	}
	return errors.Join(append(errs, c.Finger.check())...)
}

// Driver is a rig as a device of platform "arm" (see the package comment). Its methods are
// safe for concurrent use; gestures run one at a time.
type Driver struct {
	info   device.Info
	cfg    Config
	arm    *grbl.Client
	cam    Camera
	log    *slog.Logger
	cal    atomic.Pointer[calib.Calibration]
	source atomic.Pointer[calibrationSource]
	moves  atomic.Int64 // gestures run, for metrics
	// liftedAt is when the last gesture ended, the finger up; nil before the first (settle.go).
	liftedAt atomic.Pointer[time.Time]
	// halt is why the rig is held (Halt: emergency_stop; or a halt kept from before a node
	// restart or a lost link), nil when it is not; until Recover.
	halt    atomic.Pointer[string]
	gesture sync.Mutex // one gesture at a time on the gantry
	// mute is when the controller was found silent, nil while it answers; unrested, that a
	// gesture was abandoned without its stop meanwhile (silent.go).
	mute     atomic.Pointer[time.Time]
	unrested atomic.Bool

	// haltNews wakes ReportHalt's watch when Halt or Recover changed the halt (halt.go).
	haltNews chan struct{}
	// kept keeps the rig's halts across node restarts and lost links (keepHalts), nil if
	// nothing does; set before the rig is served.
	kept device.HaltStore
}

// New makes a driver of a rig whose controller and camera are open; cal may be nil until the
// rig is calibrated (SetCalibration). Close closes both. log is the rig's (rigLog): New does
// not name the rig again, so that its controller, camera and driver lines name it once.
func New(cfg Config, arm *grbl.Client, cam Camera, cal *calib.Calibration, log *slog.Logger) (*Driver, error) {
	cfg = cfg.withDefaults()
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("rig %s: %w", cfg.Serial, err)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	d := &Driver{cfg: cfg, arm: arm, cam: cam, log: log, haltNews: make(chan struct{}, 1),
		info: device.Info{Serial: cfg.Serial, Platform: device.PlatformArm, Model: cfg.Model, Brand: "Corral arm",
			Tags: cfg.Tags, Extra: map[string]string{"grbl": arm.Port()}}}
	if cal != nil {
		if err := d.SetCalibration(cal); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// rigLog is log naming the rig serial: every line of a rig names it once, whichever part of
// the rig (controller, camera, calibration, driver) logs it.
func rigLog(log *slog.Logger, serial string) *slog.Logger { return log.With("rig", serial) }

// Info describes the rig.
func (d *Driver) Info() device.Info { return d.info }

// SetCalibration makes cal the rig's calibration from the next gesture on.
func (d *Driver) SetCalibration(cal *calib.Calibration) error {
	if err := cal.Validate(); err != nil {
		return d.wrap("calibrate", err, "calibrate the rig again: corral arm calibrate")
	}
	d.cal.Store(cal)
	d.haltChanged() // a rig held as not calibrated is not any more (halt.go)
	return nil
}

// Calibration is the rig's calibration, nil before it has one.
func (d *Driver) Calibration() *calib.Calibration { return d.cal.Load() }

// calibration is the calibration a gesture or a look needs.
func (d *Driver) calibration(op string) (*calib.Calibration, error) {
	cal := d.cal.Load()
	if cal == nil {
		return nil, d.wrap(op, ErrNotCalibrated, d.calibrateHint())
	}
	return cal, nil
}

// calibrateHint says what to do with a rig that is not calibrated.
func (d *Driver) calibrateHint() string {
	return "calibrate it first: arm_calibrate (corral arm calibrate " + d.info.Serial + ")"
}

// ScreenSize is the size of the calibrated screen: the rectified frame's. Every gesture and
// look asks it first: its refusal names the calibration, not the screen's size.
func (d *Driver) ScreenSize(ctx context.Context) (device.Size, error) {
	cal, err := d.calibration("calibration")
	if err != nil {
		return device.Size{}, err
	}
	return device.Size{Width: cal.ScreenW, Height: cal.ScreenH}, nil
}

// Density is the screen's dots per inch as the calibration measured them, so that the
// PhysiClaw swipe sizes in centimetres are centimetres on the glass.
func (d *Driver) Density(ctx context.Context) (int, error) {
	cal, err := d.calibration("density")
	if err != nil {
		return 0, err
	}
	return int(math.Round(25.4 / cal.MMPerPixel())), nil
}

// Screenshot is the camera's frame rectified to the screen: what the phone shows, as the
// camera sees it, once it has answered the last gesture (settle.go).
func (d *Driver) Screenshot(ctx context.Context) (image.Image, error) {
	cal, err := d.calibration("screenshot")
	if err != nil {
		return nil, err
	}
	if err := d.settle(ctx); err != nil {
		return nil, d.wrap("screenshot", err, "")
	}
	frame, err := d.cam.Frame(ctx)
	if err != nil {
		if ctx.Err() != nil { // the task's deadline or abort, not the camera
			return nil, d.wrap("screenshot", err, "")
		}
		return nil, d.wrap("screenshot", err, "check the camera")
	}
	shot, err := calib.RectifyContext(ctx, frame, cal.Quad, cal.ScreenW, cal.ScreenH)
	if err != nil {
		return nil, d.wrap("screenshot", err, "")
	}
	return shot, nil
}

// Health says whether the rig can take work: the link is up, the controller answers and is
// not in alarm, and the rig calibrated (an uncalibrated rig refuses every gesture: it must not
// be offered free, nor pass the check that ends a halt).
func (d *Driver) Health(ctx context.Context) error {
	if err := d.ready("health"); err != nil {
		return err
	}
	if err := d.checkAnswering(ctx); err != nil {
		return err
	}
	_, err := d.calibration("health")
	return err
}

// ready refuses work on a dead link, a controller that stopped answering or one in alarm.
func (d *Driver) ready(op string) error {
	if err := d.arm.Err(); err != nil {
		return d.wrap(op, err, "the controller's link is lost: check its cable or network; the device is offline until it is back")
	}
	if err := d.silence(op); err != nil {
		return err
	}
	if why := d.halt.Load(); why != nil {
		return d.wrap(op, ErrHalted, *why+" (corral arm recover "+d.info.Serial+")")
	}
	if st := d.arm.Status(); st.State == grbl.StateAlarm {
		return d.wrap(op, fmt.Errorf("%w (%s)", ErrAlarm, alarmText(st.Alarm)),
			"a person should look at the rig; then recover it: arm_recover (corral arm recover "+d.info.Serial+"), which unlocks the controller")
	}
	return nil
}

// alarmText names an alarm code as GRBL documents it.
func alarmText(code int) string {
	if code == 0 {
		return "locked: unlock with $X"
	}
	return (&grbl.Alarm{Code: code}).Error()
}

// Moves is how many gestures the rig has run.
func (d *Driver) Moves() int64 { return d.moves.Load() }

// Recover brings the controller out of an alarm (reset, unlock) with the finger up, and ends
// a Halt: the rig takes gestures again.
func (d *Driver) Recover(ctx context.Context) error {
	d.gesture.Lock()
	defer d.gesture.Unlock()
	if _, err := d.arm.Recover(ctx); err != nil {
		return d.wrap("recover", err, "")
	}
	if err := d.cfg.Finger.up(ctx, d.arm); err != nil {
		return d.wrap("recover", err, "")
	}
	if err := d.arm.Barrier(ctx); err != nil {
		return d.wrap("recover", err, "")
	}
	d.unrested.Store(false) // at rest, the finger up
	d.halt.Store(nil)
	d.haltChanged()
	d.log.Info("rig recovered")
	return nil
}

// rest brings a rig whose controller was just opened to rest with the finger up: over TCP a
// controller keeps doing what it did when its last client went away, the finger maybe down.
func (d *Driver) rest(ctx context.Context) error {
	d.gesture.Lock()
	defer d.gesture.Unlock()
	if err := d.restLocked(ctx); err != nil {
		return d.wrap("rest", err, "check the rig: its finger may still be down")
	}
	return nil
}

// restLocked is rest with d.gesture held: a stop, out of an alarm it left, the finger up.
func (d *Driver) restLocked(ctx context.Context) error {
	st, err := d.arm.Stop(ctx)
	if err == nil && st.State == grbl.StateAlarm {
		_, err = d.arm.Recover(ctx)
	}
	if err == nil {
		err = d.cfg.Finger.up(ctx, d.arm)
	}
	if err == nil {
		err = d.arm.Barrier(ctx)
	}
	return err
}

// Halt stops the rig at once, whatever it does: a feed hold, a reset, the finger up. It does
// not wait for the gesture in flight (that gesture fails), and the rig refuses gestures after
// it until Recover (device.Halter: emergency_stop), saying who stopped it and when.
func (d *Driver) Halt(ctx context.Context, stop device.Stop) error {
	why := stop.Reason()
	d.halt.Store(&why)
	d.haltChanged()
	d.log.Warn("rig halted", "by", stop.By)
	if _, err := d.arm.Stop(ctx); err != nil {
		return d.wrap("halt", err, "it may still be moving, or its finger down: cut its power")
	}
	return nil
}

// Close releases the controller and the camera.
func (d *Driver) Close() error {
	return errors.Join(d.arm.Close(), d.cam.Close())
}

// toGantry maps a screen pixel to the gantry, refusing one off the calibrated screen.
func (d *Driver) toGantry(op string, cal *calib.Calibration, p device.Point) (geom.Point, error) {
	if p.X < 0 || p.Y < 0 || p.X >= cal.ScreenW || p.Y >= cal.ScreenH {
		return geom.Point{}, d.wrap(op, ErrOutOfScreen, fmt.Sprintf("pixel (%d, %d) is outside the %d×%d screen", p.X, p.Y, cal.ScreenW, cal.ScreenH))
	}
	mm, err := cal.ToGantry(geom.Point{X: float64(p.X) + 0.5, Y: float64(p.Y) + 0.5})
	if err != nil {
		return geom.Point{}, d.wrap(op, fmt.Errorf("%w: %w", ErrOutOfScreen, err), "")
	}
	return mm, nil
}

// Gauges are what the rig measures of itself, for /metrics (device.Gauger): its calibration's
// check-touch error and probe residual (mm; -1 before it is calibrated), the gestures it ran,
// and 1 while its controller is in alarm or it is halted.
func (d *Driver) Gauges() map[string]float64 {
	errMM, residual := -1.0, -1.0
	if cal := d.cal.Load(); cal != nil {
		errMM, residual = cal.ValidationErrMM, cal.ResidualP95MM
	}
	alarm := 0.0
	if d.arm.Status().State == grbl.StateAlarm || d.halt.Load() != nil {
		alarm = 1
	}
	return map[string]float64{"calibration_error_mm": errMM, "calibration_residual_p95_mm": residual,
		"gestures": float64(d.moves.Load()), "alarm": alarm}
}
