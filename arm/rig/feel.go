package rig

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/corral-farm/corral/arm/grbl"
	"github.com/corral-farm/corral/internal/geom"
)

// A probe's touch reaches the rig through the readback: the twin's simulator and its page's
// event stream, or a real phone's page over the network, each hop a goroutine or a packet that
// a loaded host runs late. feelTimeout of wall clock alone was tight there: a calibration
// failed with "the phone felt no touch" while the touch was on its way. The wait is also
// counted in the controller's status reports, asked for on this host's clock 8 times a
// second: it ends once feelTimeout has passed and feelReports reports have come since, which a
// host that keeps up takes feelTimeout for, and a host running late longer. Not the
// calibration's whole deadline: a rig calibrating as its node starts has none, and a probe
// that missed the glass must still say so.
const feelReports = 24

// feel waits for the touch of the probe that just lifted the finger, until feelBound.
func (d *Driver) feel(ctx context.Context, touches <-chan geom.Point) (geom.Point, error) {
	start := time.Now()
	bound, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() { cancel(d.feelBound(bound)) }()
	select {
	case p, open := <-touches:
		return touched(p, open)
	case <-bound.Done():
	}
	if ctx.Err() != nil {
		return geom.Point{}, stoppedMidGesture{ctx.Err()}
	}
	select { // it may have come as the bound passed
	case p, open := <-touches:
		return touched(p, open)
	default:
	}
	if err := context.Cause(bound); errors.Is(err, grbl.ErrSilent) {
		d.silenced(err)
		return geom.Point{}, d.wrap("probe", err, hintSilent)
	}
	return geom.Point{}, fmt.Errorf("the phone felt no touch within %s", time.Since(start).Round(100*time.Millisecond))
}

// errReadbackEnded: the readback's touches ended (its page's stream closed) mid-calibration.
// A closed channel read as touches at (0, 0), and its drain before a probe spun for ever.
var errReadbackEnded = errors.New("the calibration page stopped reporting touches (its stream ended)")

// touched is the touch a probe's wait read, p unless the readback ended (not open).
func touched(p geom.Point, open bool) (geom.Point, error) {
	if !open {
		return geom.Point{}, errReadbackEnded
	}
	return p, nil
}

// feelBound returns once feelTimeout has passed and feelReports status reports have come (or
// the controller is in alarm, answering none, or its link is lost), or at once with the
// controller's silence (silentAfter); nil when ctx ends first.
func (d *Driver) feelBound(ctx context.Context) error {
	watched, done := d.unlessSilent(ctx, silentAfter)
	counted := make(chan struct{})
	defer func() { <-counted }() // after done: its WaitFor ends with watched
	defer done()
	go func() {
		defer close(counted)
		reports := 0
		_, _ = d.arm.WaitFor(watched, func(st grbl.Status) bool {
			reports++
			return reports >= feelReports || st.State == grbl.StateAlarm
		})
	}()
	wall := make(chan struct{})
	defer time.AfterFunc(feelTimeout, func() { close(wall) }).Stop()
	for _, over := range []<-chan struct{}{wall, counted} {
		select {
		case <-over:
		case <-watched.Done():
			if err := context.Cause(watched); errors.Is(err, grbl.ErrSilent) {
				return err
			}
			return nil
		}
	}
	return nil
}
