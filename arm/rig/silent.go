package rig

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/corral-farm/corral/arm/grbl"
)

// A controller that stops answering while its link stays up (frozen, as kill -STOP leaves it;
// a hung board) is lost only after the rig's link_timeout, which may be a minute. QA: each tap
// on one took its deadline and then the 10 s stop after it, past the farm's grace, so the
// answer read "the driver did not stop after cancellation", and the rig was online again for
// the next caller 200 ms later: the cause was in the log only. Now the stop after a failed
// gesture gives up once the controller has been silent for silentAfter, the gesture's error
// says the controller stopped answering, and the rig refuses work (unhealthy, with that
// reason) until the controller answers again; its next gesture then first brings it to rest,
// the finger up, as the abandoned gesture's stop could not. A gesture that finds the
// controller silent already as it starts is refused at once, not after its deadline.
const (
	// silentAfter is how long a controller may send no status report (it is asked 8 times a
	// second) before it counts as silent: longer than a loaded host's late reports.
	silentAfter = 3 * time.Second
	// healthWait is how long a health check waits for a report from a controller that has
	// sent none for silentAfter; the check's own deadline bounds it too.
	healthWait = 5 * time.Second
	// answerWait is how long a gesture about to start waits for a report from a controller
	// that has sent none for silentAfter: eight polls, not the gesture's deadline, which its
	// first line would wait out (QA: the first tap after an idle freeze took its whole 10 s).
	answerWait = time.Second
	// silentAtCut bounds the silence a stop waits through after a gesture's deadline passed
	// (or it was aborted): the driver has the farm's grace (1 s by default) to return, and a
	// controller frozen in the last 3 s before the deadline held the stop past it (the actor
	// restarted). Four status reports missed in a row: a stop on an answering controller sees
	// one every 125 ms.
	silentAtCut = 500 * time.Millisecond
)

// hintSilent says what to do about a controller that stopped answering.
const hintSilent = "check the controller (its power; a hung board: reset it or cycle its power) and its link (the cable or network): " +
	"its finger may be down; the rig takes no task until the controller answers again, and its next gesture then first lifts the finger; " +
	"if it never answers, the rig goes offline once its link_timeout has passed"

// silenced notes that the controller was found silent (err, Answering's): the rig refuses
// work until it answers again (silence), and is brought to rest before its next gesture.
func (d *Driver) silenced(err error) {
	now := time.Now()
	d.mute.Store(&now)
	d.unrested.Store(true)
	d.log.Error("rig controller stopped answering: the rig takes no task until it answers; check that the finger is up", "err", err)
}

// silence is why the rig refuses work while its controller has sent nothing since it was
// found silent; nil once it answers again.
func (d *Driver) silence(op string) error {
	since := d.mute.Load()
	if since == nil {
		return nil
	}
	last := d.arm.LastReport()
	if last.After(*since) {
		if d.mute.CompareAndSwap(since, nil) {
			d.log.Info("rig controller answers again")
		}
		return nil
	}
	// Since when, not for how long: the reason is the same at every check, one device event.
	return d.wrap(op, fmt.Errorf("%w: no status report since %s", ErrNotAnswering, last.UTC().Format(time.RFC3339)), hintSilent)
}

// checkAnswering is the health check's look at the controller: one that has sent no status
// report for silentAfter, and sends none within healthWait, is silent (silenced).
func (d *Driver) checkAnswering(ctx context.Context) error {
	return d.answering(ctx, "health", healthWait)
}

// answering refuses op (silenced, with silence's words) when the controller has sent no status
// report for silentAfter and sends none within wait; nil at once when one came since.
func (d *Driver) answering(ctx context.Context, op string, wait time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	err := d.arm.Answering(ctx, silentAfter)
	if !errors.Is(err, grbl.ErrSilent) {
		return nil // answering; a lost link is ready's to say
	}
	d.silenced(err)
	return d.silence(op)
}

// unlessSilent is ctx, also cancelled, with the controller's silence as its cause, once the
// controller has sent no status report for after: a stop waits for no answer that will not
// come. done ends it.
func (d *Driver) unlessSilent(ctx context.Context, after time.Duration) (_ context.Context, done func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		if err := d.arm.Silent(ctx, after); errors.Is(err, grbl.ErrSilent) {
			cancel(err)
		}
	}()
	return ctx, func() { cancel(nil); <-watched }
}

// restAbandoned brings the rig to rest, the finger up, before a gesture or a probe when a
// gesture was abandoned without its stop (its controller silent). Called with d.gesture held.
func (d *Driver) restAbandoned(ctx context.Context, op string) error {
	if !d.unrested.Load() {
		return nil
	}
	if err := d.restLocked(ctx); err != nil {
		return d.wrap(op, err, "the controller answers again, but bringing the rig to rest failed: check that the finger is up")
	}
	d.unrested.Store(false)
	d.log.Info("rig brought to rest after its controller answered again")
	return nil
}
