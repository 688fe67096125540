package actors

import (
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
// returned, a new capture is refused and counted, and none starts until they return. Tasks
// and the restarted actor's health check do not wait for them: a stuck call is abandoned, not
// waited for (SCHEDULER.md rule 6), and the device is back once a check passes.

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
	capture   bool // a capture is in the driver
	tasks     int  // tasks in the driver: one, and those abandoned at restarts
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
}

// task records a task's driver call from its start; the func it returns, its end.
func (c *screenCalls) task() (end func()) {
	c.mu.Lock()
	c.tasks++
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		c.tasks--
		c.mu.Unlock()
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
