package rig

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/corral-farm/corral/arm/grbl"
)

// Finger is how the stylus touches the glass: a solenoid switched by the spindle PWM (M3 S
// strikes, M5 releases) or a Z axis that lowers it to TouchZ and lifts it to LiftZ.
type Finger struct {
	// Z makes the finger a Z axis; otherwise it is a solenoid on the spindle output.
	Z bool `json:"z,omitempty"`
	// StrikePWM is the S value M3 strikes with (default 1000, GRBL's default $30).
	StrikePWM float64 `json:"strike_pwm,omitempty"`
	// Settle is how long the solenoid takes to reach the glass or to leave it (default 30 ms):
	// the gesture waits that long after M3 before it counts the touch, and after M5 before
	// it travels, so a lift never drags across the screen.
	Settle time.Duration `json:"settle,omitempty"`
	// TouchZ and LiftZ are the Z finger's heights in millimetres (machine coordinates:
	// TouchZ below LiftZ); ZFeed is how fast it moves between them (mm/min, default 3000).
	TouchZ float64 `json:"touch_z,omitempty"`
	LiftZ  float64 `json:"lift_z,omitempty"`
	ZFeed  float64 `json:"z_feed,omitempty"`
}

func (f Finger) withDefaults() Finger {
	if f.StrikePWM == 0 {
		f.StrikePWM = 1000
	}
	if f.Settle == 0 {
		f.Settle = 30 * time.Millisecond
	}
	if f.ZFeed == 0 {
		f.ZFeed = 3000
	}
	return f
}

func (f Finger) check() error {
	var errs []error
	if f.Z {
		if !finite(f.TouchZ) || !finite(f.LiftZ) || f.TouchZ >= f.LiftZ {
			errs = append(errs, fmt.Errorf("finger: touch_z %g must be below lift_z %g (machine millimetres)", f.TouchZ, f.LiftZ))
		}
		if !finite(f.ZFeed) || f.ZFeed <= 0 {
			errs = append(errs, fmt.Errorf("finger: z_feed %g mm/min must be positive", f.ZFeed))
		}
	} else if !finite(f.StrikePWM) || f.StrikePWM <= 0 {
		errs = append(errs, fmt.Errorf("finger: strike_pwm %g must be positive", f.StrikePWM))
	}
	if f.Settle < 0 || f.Settle > time.Second {
		errs = append(errs, fmt.Errorf("finger: settle %s must be between 0 and 1s", f.Settle))
	}
	return errors.Join(errs...)
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// down puts the finger on the glass where the head is. GRBL runs M3 and Z moves after the
// moves before them, so the touch starts once the travel has ended.
func (f Finger) down(ctx context.Context, c *grbl.Client) error {
	if f.Z {
		return c.SetZ(ctx, f.TouchZ, f.ZFeed)
	}
	if err := c.SpindleOn(ctx, f.StrikePWM); err != nil {
		return err
	}
	return c.Dwell(ctx, f.Settle)
}

// up lifts the finger off the glass.
func (f Finger) up(ctx context.Context, c *grbl.Client) error {
	if f.Z {
		return c.SetZ(ctx, f.LiftZ, f.ZFeed)
	}
	if err := c.SpindleOff(ctx); err != nil {
		return err
	}
	return c.Dwell(ctx, f.Settle)
}

// touchInto adds a touch where the head is to p: down, hold, up, as down and up send them.
func (f Finger) touchInto(p *grbl.Program, hold time.Duration) {
	if f.Z {
		p.SetZ(f.TouchZ, f.ZFeed)
		p.Dwell(hold)
		p.SetZ(f.LiftZ, f.ZFeed)
		return
	}
	p.SpindleOn(f.StrikePWM)
	p.Dwell(f.Settle + hold)
	p.SpindleOff()
	p.Dwell(f.Settle)
}

// touchTakes is about how long a touch of hold takes from its start to the finger up again
// (a Z finger's travel at its feed, its acceleration aside).
func (f Finger) touchTakes(hold time.Duration) time.Duration {
	if f.Z {
		travel := time.Duration(math.Abs(f.LiftZ-f.TouchZ) / f.ZFeed * float64(time.Minute))
		return 2*travel + hold
	}
	return 2*f.Settle + hold
}
