package nodes

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// When an explicit lease ends, a device.Resetter is wiped for its next holder (a browser gets
// a fresh profile). The wipe is the ended lease's work, not the next caller's: it starts as the
// lease ends (or, if a task is still in the driver then, as that task returns), bounded by
// wipeTimeout alone. A task waits for it within its own deadline; a deadline that passes first
// times the task out saying so, and the wipe goes on, so a short timeout_ms on the first call
// after a release never fails the wipe nor breaks the device. A wipe that fails leaves the
// device refusing tasks (unhealthy) until one succeeds: each task tries again. A lease that ends
// as the node stops (its leases revoked) asks for no wipe: the node removes the device next, its
// driver's Close takes what the holder left with it (a browser's profile directory), and its next
// start begins afresh; a wipe would start a new browser only to close it.

// wipeTimeout bounds one wipe: a browser's stop and the start of a new one, a few seconds on a
// loaded machine.
const wipeTimeout = time.Minute

// wipeHungAfter is when a wipe that has not returned, its context ended long since, is a
// driver that hangs: the device is then unhealthy (Health), its tasks refused with why, rather
// than online with every task timing out behind the wipe.
const wipeHungAfter = wipeTimeout + 10*time.Second

// errStillWiping answers a task whose context ended while it waited for the wipe.
var errStillWiping = errors.New("nothing ran: the device was still being wiped of what its last holder left " +
	"(a fresh browser starting takes a few seconds), and the wipe goes on; call again, with a longer timeout_ms if yours is short")

// wiper runs a device's wipes, one at a time, never beside a task.
type wiper struct {
	reset     func(context.Context) error
	hungAfter time.Duration // wipeHungAfter; shorter in tests
	// stopping says whether the node is stopping: no wipe starts then (nil: never).
	stopping func() bool

	mu      sync.Mutex
	ended   uint64   // leases ended
	wiped   uint64   // of those, the ones a wipe that succeeded came after
	running *wipeRun // the wipe under way, nil if none
	tasks   int      // tasks in the driver (begin to end)
}

// wipeRun is one wipe; done closes at its end, err then says how it went.
type wipeRun struct {
	done    chan struct{}
	err     error
	started time.Time
}

// leaseEnded asks for a wipe: at once if no task is in the driver, else at the last one's end.
// It returns at once (the scheduler calls it).
func (w *wiper) leaseEnded() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopping != nil && w.stopping() {
		return
	}
	w.ended++
	if w.tasks == 0 {
		w.startLocked()
	}
}

// startLocked starts a wipe unless one runs, and returns the one running. Callers hold mu.
func (w *wiper) startLocked() *wipeRun {
	if w.running != nil {
		return w.running
	}
	run := &wipeRun{done: make(chan struct{}), started: time.Now()}
	w.running = run
	upTo := w.ended
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), wipeTimeout)
		err := w.reset(ctx)
		cancel()
		w.mu.Lock()
		run.err, w.running = err, nil
		if err == nil {
			w.wiped = upTo
		}
		w.mu.Unlock()
		close(run.done)
	}()
	return run
}

// begin waits, within ctx, until no wipe runs and every ended lease's wipe has succeeded,
// starting one if none runs, then counts a task in the driver until end. It fails with
// errStillWiping if ctx ends first, or with the error of a wipe that failed.
func (w *wiper) begin(ctx context.Context) error {
	w.mu.Lock()
	for w.running != nil || w.ended > w.wiped {
		run := w.startLocked()
		w.mu.Unlock()
		select {
		case <-run.done:
		case <-ctx.Done():
			return errStillWiping
		}
		if run.err != nil {
			return run.err
		}
		w.mu.Lock()
	}
	w.tasks++
	w.mu.Unlock()
	return nil
}

// end counts the task begun out of the driver, and starts the wipe a lease that ended during it
// asked for.
func (w *wiper) end() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.tasks--
	if w.tasks == 0 && w.ended > w.wiped && (w.stopping == nil || !w.stopping()) {
		w.startLocked()
	}
}

// state says whether a wipe runs now, and an error if it has run for hungAfter: its driver hangs.
func (w *wiper) state() (busy bool, hung error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.running == nil {
		return false, nil
	}
	if took := time.Since(w.running.started); took >= w.hungAfter {
		return true, fmt.Errorf("the wipe after the last lease has not returned after %s (its bound is %s): the driver hangs, and the device takes no task until it returns (if it never does, restart the node)", took.Round(time.Second), wipeTimeout)
	}
	return true, nil
}
