package actors

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// One capture per device in its driver, and none beside a task, whichever incarnation of its
// actor started them.
//
// A capture or a task found stuck restarts the device's actor (captureStuck, graceOver), and
// the new incarnation knew nothing of the driver call still running: on a loaded node (2
// cores, load 20, -race) a slow capture was declared stuck, the actor restarted, the console's
// next frame started a second capture beside the first, and so on: 12 watched phones had ~40
// screenshots drawing at once, and the node's tool calls waited minutes for the CPU. So a
// device's driver calls are counted across restarts: while a capture or a task has not
// returned, a new capture is refused and counted, and none starts until they return. Nor does
// the restarted actor's health check run beside them: it waits for them, within its own bound
// (health.go), so the device is online again once its driver is free and answers.

// errCaptureRunning answers a capture while an earlier one, abandoned when the device's actor
// restarted, has not returned from the driver yet.
var errCaptureRunning = errors.New("an earlier capture of the device has not returned from its driver yet (past its timeout, the device's actor restarted); no second one runs beside it, the screen is looked at again once it returns")

// errTaskStillRunning answers a capture while a task abandoned when the device's actor
// restarted has not returned from the driver yet: busy, as during a task.
var errTaskStillRunning = fmt.Errorf("%w: a task abandoned when the device's actor restarted has not returned from its driver yet", ErrCaptureBusy)

// screenCalls is one device's driver calls, shared by its actor's incarnations.
type screenCalls struct {
	running   prometheus.Gauge   // the node's captures in their drivers
	refused   prometheus.Counter // the node's captures refused for a call still running
	abandoned prometheus.Counter // the node's overdue captures given up without a restart
	log       *slog.Logger
	mu        sync.Mutex
	capture   bool          // a capture is in the driver
	tasks     int           // tasks in the driver: one, and those abandoned at restarts
	idle      chan struct{} // closed once no call is in the driver (wait); nil until asked
}

// newScreenCalls counts a device of node's captures in node's series, and logs to log.
func newScreenCalls(m *Metrics, node string, log *slog.Logger) *screenCalls {
	return &screenCalls{running: m.capturesRunning.WithLabelValues(node), refused: m.capturesRefused.WithLabelValues(node),
		abandoned: m.capturesAbandoned.WithLabelValues(node), log: log}
}

// start says whether a capture may call the driver (nil), or why not. Each nil is followed by
// one end, when the driver returns.
func (c *screenCalls) start() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.capture:
		c.refused.Inc()
		return errCaptureRunning
	case c.tasks > 0:
		c.refused.Inc()
		return errTaskStillRunning
	}
	c.capture = true
	c.running.Inc()
	return nil
}

// end records that the capture's driver returned.
func (c *screenCalls) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.capture = false
	c.running.Dec()
	c.wake()
}

// task records a task's driver call from its start; the func it returns, its end.
func (c *screenCalls) task() (end func()) {
	c.mu.Lock()
	c.tasks++
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		c.tasks--
		c.wake()
		c.mu.Unlock()
	}
}

// wake tells wait's callers that no call is in the driver any more. c.mu is held.
func (c *screenCalls) wake() {
	if !c.capture && c.tasks == 0 && c.idle != nil {
		close(c.idle)
		c.idle = nil
	}
}

// wait returns once no capture or task is in the driver, or fails when ctx ends first: the
// call it waited for (abandoned at a restart, or overdue) may be hung.
func (c *screenCalls) wait(ctx context.Context) error {
	c.mu.Lock()
	if !c.capture && c.tasks == 0 {
		c.mu.Unlock()
		return nil
	}
	if c.idle == nil {
		c.idle = make(chan struct{})
	}
	idle, what := c.idle, "a task"
	if c.capture {
		what = "a console capture"
	}
	c.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("the driver has not returned from %s (abandoned when the device's actor restarted, or overdue): it may be hung; no check runs beside it, the device is checked again until it returns: %w", what, context.Cause(ctx))
	}
}

// abandon counts and logs, once, an overdue capture given up without a restart: no task waits
// for the device, so a slow driver is not taken for a hung one (capture.go).
func (c *screenCalls) abandon(serial string, timeout, waited time.Duration) {
	c.abandoned.Inc()
	c.log.Info(msgCaptureAbandoned, "serial", serial, "timeout", timeout, "waited", waited.Round(time.Millisecond),
		"why", "the driver has not returned a screenshot; no task waits for the device, so it is slow, not hung; no capture starts until it returns")
}

// msgCaptureAbandoned is abandon's log message.
const msgCaptureAbandoned = "console capture abandoned, its device not restarted"
