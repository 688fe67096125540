package twin

import (
	"context"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/corral-farm/corral/arm/calib"
	"github.com/corral-farm/corral/arm/camera/camsim"
	"github.com/corral-farm/corral/arm/grbl/grblsim"
	"github.com/corral-farm/corral/internal/geom"
	"github.com/corral-farm/corral/internal/lens"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
)

// Gantry settings of the twin: a belt-driven gantry like a small 3D printer's (500 mm/s,
// 4000 mm/s²) over a 200×200 mm bed, so a tap anywhere on the phone ends within half a second.
var gantry = map[int]float64{110: 30000, 111: 30000, 120: 4000, 121: 4000, 130: 200, 131: 200}

// limits are the settings of Options.Limits: homing ($22) and soft limits ($20), which GRBL
// takes only together.
var limits = map[int]float64{20: 1, 22: 1}

// Options configure a twin.
type Options struct {
	// Seed draws the rig's geometry and the camera's conditions.
	Seed int64
	// Serial names the phone (and the rig that drives it).
	Serial string
	// Speed runs the gantry that many times faster than real time (tests); default 1.
	Speed float64
	// Phone options for the simulated phone (size, passcode, locked, ...).
	Phone []sim.Option
	// Log receives the twin's warnings (a touch off the glass, a refused input).
	Log *slog.Logger
	// Limits turns on homing and soft limits over the 200×200 mm bed, as on a rig with limit
	// switches: $H homes, a target off the bed (G0 X-500) raises ALARM:2 instead of moving,
	// and the controller powers up (and resets) locked until $H or $X, as GRBL with $22=1.
	Limits bool
}

// Twin is a running digital twin.
type Twin struct {
	Phone  *sim.Phone
	GRBL   *grblsim.Sim
	Camera *camsim.Camera
	// ScreenToGantry is the true geometry: where a screen pixel lies under the gantry (mm).
	ScreenToGantry geom.Affine
	// Size is the phone's screen in pixels.
	Size device.Size

	touch *touchScreen
	ruler [4]float64 // RoughArea's errors, mm

	mu          sync.Mutex
	calibrating bool
}

// Start starts a twin: the simulator serves nothing yet (ServeTCP, ServePTY or Attach on
// t.GRBL); the camera renders on each Frame.
func Start(o Options) (*Twin, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Serial == "" {
		o.Serial = fmt.Sprintf("arm-twin-%d", o.Seed)
	}
	phone := sim.New(o.Serial, append([]sim.Option{sim.WithoutTree()}, o.Phone...)...)
	size, err := phone.ScreenSize(context.Background())
	if err != nil {
		return nil, err
	}
	toGantry, err := placement(o.Seed, size)
	if err != nil {
		return nil, err
	}
	toScreen, err := toGantry.Inverse()
	if err != nil {
		return nil, fmt.Errorf("twin: the phone's placement does not invert: %w", err)
	}
	t := &Twin{Phone: phone, ScreenToGantry: toGantry, Size: size}
	rng := rand.New(rand.NewPCG(uint64(o.Seed), 0x5ca1e))
	for i := range t.ruler {
		t.ruler[i] = (rng.Float64()*2 - 1) * 2
	}
	t.touch = &touchScreen{phone: phone, toScreen: toScreen, size: size, log: o.Log, speed: max(o.Speed, 1),
		rng: rand.New(rand.NewPCG(uint64(o.Seed), 0x7e9ea7))}
	opts := []grblsim.Option{grblsim.WithLogger(o.Log)}
	for n, v := range gantry {
		opts = append(opts, grblsim.WithSetting(n, v))
	}
	if o.Limits {
		for n, v := range limits {
			opts = append(opts, grblsim.WithSetting(n, v))
		}
	}
	if o.Speed > 0 {
		opts = append(opts, grblsim.WithSpeed(o.Speed))
	}
	t.GRBL = grblsim.New(opts...)
	t.GRBL.OnFinger(t.touch.finger)
	t.Camera = camsim.New(t.screen, lens.Mild(o.Seed, size.Width, size.Height))
	return t, nil
}

// placement draws where the phone lies under the gantry: its top-left corner 40-60 mm
// right and 20-40 mm down of the origin, turned by up to 3°, at 0.055-0.070 mm a pixel.
func placement(seed int64, s device.Size) (geom.Affine, error) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x7717))
	pitch := 0.055 + 0.015*rng.Float64()
	turn := (rng.Float64()*2 - 1) * 3 * math.Pi / 180
	ox, oy := 40+20*rng.Float64(), 20+20*rng.Float64()
	sin, cos := math.Sincos(turn)
	px := []geom.Point{{X: 0, Y: 0}, {X: float64(s.Width), Y: 0}, {X: 0, Y: float64(s.Height)}}
	mm := make([]geom.Point, len(px))
	for i, p := range px {
		x, y := p.X*pitch, p.Y*pitch
		mm[i] = geom.Point{X: ox + cos*x - sin*y, Y: oy + sin*x + cos*y}
	}
	return geom.FitAffine(px, mm)
}

// screen is what the camera sees on the phone: its screen, or the calibration page.
func (t *Twin) screen(ctx context.Context) (image.Image, error) {
	t.mu.Lock()
	cal := t.calibrating
	t.mu.Unlock()
	switch {
	case cal:
		return calib.Page(t.Size.Width, t.Size.Height), nil
	case t.touch.dark():
		return image.NewRGBA(image.Rect(0, 0, t.Size.Width, t.Size.Height)), nil // all black
	}
	return t.Phone.Screenshot(ctx)
}

// Sleep turns the phone's display off, as its side button does: the phone locks, the camera
// sees a black screen, and the next touch wakes it (tap to wake) and lands nowhere else.
func (t *Twin) Sleep(ctx context.Context) error {
	if err := t.Phone.PressKey(ctx, "POWER"); err != nil {
		return err
	}
	t.touch.sleep(true)
	return nil
}

// Asleep says whether the phone's display is off.
func (t *Twin) Asleep() bool { return t.touch.dark() }

// ShowCalibration puts the calibration page on the phone: the camera sees it, and touches
// are not given to the phone but reported, in screen pixels, where they landed. stop goes
// back to the phone's own screen.
func (t *Twin) ShowCalibration(ctx context.Context) (touches <-chan geom.Point, size device.Size, stop func(), err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.calibrating {
		return nil, device.Size{}, nil, errors.New("twin: the calibration page shows already")
	}
	t.calibrating = true
	ch := make(chan geom.Point, 64)
	t.touch.calibrating(ch)
	var once sync.Once
	return ch, t.Size, func() {
		once.Do(func() {
			t.touch.calibrating(nil)
			t.mu.Lock()
			t.calibrating = false
			t.mu.Unlock()
		})
	}, nil
}

// Close stops the simulator, the camera and the phone.
func (t *Twin) Close() error {
	return errors.Join(t.GRBL.Close(), t.Camera.Close(), t.Phone.Close())
}

// RoughArea is where the screen lies under the gantry as a person would measure it with a
// ruler: the true corners' bounding box, each side off by up to 2 mm.
func (t *Twin) RoughArea() (lo, hi geom.Point) {
	w, h := float64(t.Size.Width), float64(t.Size.Height)
	lo = geom.Point{X: math.Inf(1), Y: math.Inf(1)}
	hi = geom.Point{X: math.Inf(-1), Y: math.Inf(-1)}
	for _, c := range []geom.Point{{X: 0, Y: 0}, {X: w, Y: 0}, {X: w, Y: h}, {X: 0, Y: h}} {
		p := t.ScreenToGantry.Apply(c)
		lo = geom.Point{X: min(lo.X, p.X), Y: min(lo.Y, p.Y)}
		hi = geom.Point{X: max(hi.X, p.X), Y: max(hi.Y, p.Y)}
	}
	e := t.ruler
	return geom.Point{X: lo.X + e[0], Y: lo.Y + e[1]}, geom.Point{X: hi.X + e[2], Y: hi.Y + e[3]}
}
