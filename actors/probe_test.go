package actors

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// logLines is a slog.Handler that keeps the messages logged.
type logLines struct {
	mu   sync.Mutex
	msgs []string
}

func (l *logLines) Enabled(context.Context, slog.Level) bool { return true }
func (l *logLines) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logLines) WithGroup(string) slog.Handler            { return l }
func (l *logLines) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	l.msgs = append(l.msgs, r.Message)
	l.mu.Unlock()
	return nil
}

// count is how many times msg was logged.
func (l *logLines) count(msg string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, m := range l.msgs {
		if m == msg {
			n++
		}
	}
	return n
}

// A task that times out because its driver answers nothing (a phone whose process was
// SIGSTOPped) gets its device checked at once: it shows unhealthy with the check's reason,
// logged once, its queued task waits instead of running its whole deadline on the hung device,
// the checks go on, and once one passes the device is online and the queued task runs.
func TestTimedOutTaskOnAHungDeviceShowsItUnhealthyAndHoldsTheQueue(t *testing.T) {
	dev := newRig(t, "d1")
	var hung atomic.Bool
	var checks atomic.Int32
	dev.health = func(ctx context.Context) error {
		checks.Add(1)
		if !hung.Load() {
			return nil
		}
		<-ctx.Done() // a stopped process answers nothing; the driver honours its context
		return fmt.Errorf("adb: echo ok: %w", ctx.Err())
	}
	logs := &logLines{}
	f := newFarm(t, Config{Grace: 100 * time.Millisecond, Log: slog.New(logs)}, dev)
	f.waitState("d1", broker.StateOnline)

	hung.Store(true)
	tap := f.submit(broker.TaskRequest{ID: "tap", Serial: "d1", Tool: "block", TimeoutMS: 500})
	pollUntil(t, dev.isRunning, "the tap never started")
	shot := f.submit(broker.TaskRequest{ID: "shot", Serial: "d1", Tool: "noop", WaitMS: 60_000})
	expect(t, tap.wait(), broker.OutcomeTimedOut, "")

	f.waitState("d1", broker.StateUnhealthy)
	assert.Contains(t, f.entry("d1").Reason, "adb: echo ok: context deadline exceeded")
	unanswered(t, shot, "the task queued behind the timed-out one, on a hung device,")
	r := f.submit(broker.TaskRequest{ID: "new", Serial: "d1", Tool: "noop"}).wait()
	expect(t, r, broker.OutcomeRefused, broker.CodeUnhealthy)
	assert.Contains(t, r.Error, "adb: echo ok")

	probed := checks.Load()
	pollUntil(t, func() bool { return checks.Load() > probed }, "the hung device was never checked again")
	f.leases() // the scheduler has taken the recheck's answer
	unanswered(t, shot, "the queued task after a recheck that failed")
	assert.Equal(t, 1, logs.count("device unhealthy"), "a hung device is logged once, not at every recheck")

	hung.Store(false)
	expect(t, shot.wait(), broker.OutcomeSucceeded, "")
	assert.Equal(t, 1, logs.count("device healthy again"))
	expect(t, f.submit(broker.TaskRequest{ID: "after", Serial: "d1", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")
}

// A task that timed out on a device that still answers changes nothing: the device is checked
// once, never shown unhealthy, logs nothing, and the caller's retry runs at once.
func TestTimedOutTaskOnAHealthyDeviceChangesNothing(t *testing.T) {
	dev := newRig(t, "d1")
	var checks atomic.Int32
	dev.health = func(context.Context) error { checks.Add(1); return nil }
	logs := &logLines{}
	f := newFarm(t, Config{Log: slog.New(logs)}, dev)
	f.waitState("d1", broker.StateOnline)
	events, before := len(f.deviceEvents("d1")), checks.Load()

	expect(t, f.submit(broker.TaskRequest{ID: "slow", Serial: "d1", Tool: "block", TimeoutMS: 30}).wait(), broker.OutcomeTimedOut, "")
	expect(t, f.submit(broker.TaskRequest{ID: "retry", Serial: "d1", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")
	assert.Equal(t, before+1, checks.Load(), "health checks after one timeout")
	assert.Len(t, f.deviceEvents("d1"), events, "device events: %v", f.deviceEvents("d1"))
	assert.Zero(t, logs.count("device unhealthy"))
}

// A task sent without a wait while the device is checked after a timeout would have started at
// once: it waits for the check's answer, runs if the device answers, and is refused unhealthy
// if it does not. Meanwhile the device shows busy and its screen is not looked at.
func TestTaskArrivingDuringTheCheckWaitsForItsAnswer(t *testing.T) {
	dev := newRig(t, "d1")
	var checking atomic.Bool
	entered := make(chan struct{}, 1)
	answer := make(chan error)
	dev.health = func(ctx context.Context) error {
		if !checking.Load() {
			return nil
		}
		entered <- struct{}{}
		select {
		case err := <-answer:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	f := newFarm(t, Config{}, dev)
	f.waitState("d1", broker.StateOnline)
	checking.Store(true)

	// The check finds the device hung: the task is refused, not run.
	expect(t, f.submit(broker.TaskRequest{ID: "t1", Serial: "d1", Tool: "block", TimeoutMS: 30}).wait(), broker.OutcomeTimedOut, "")
	recv(t, entered, "the check after the timeout")
	// No lease is granted on a device that may be hung: busy, until the check answers.
	a := recv(t, f.acquire(broker.AcquireRequest{Serial: "d1", Holder: broker.Holder{Principal: "bob"}}), "an acquire during the check")
	assert.False(t, a.OK, "a lease granted during the check")
	assert.Equal(t, broker.CodeBusy, a.Code)
	held := f.submit(broker.TaskRequest{ID: "n1", Serial: "d1", Tool: "noop"})
	f.leases()
	unanswered(t, held, "a task that came during the check")
	assert.Equal(t, broker.StateBusy, f.entry("d1").State, "while the check runs")
	shot := make(chan error, 1)
	f.root.Send(f.sched, CaptureScreen{Serial: "d1", Reply: func(_ ScreenFrame, err error) { shot <- err }})
	assert.ErrorIs(t, recv(t, shot, "a capture during the check"), ErrCaptureBusy, "one driver operation at a time")
	answer <- errors.New("adb: device offline")
	r := held.wait()
	expect(t, r, broker.OutcomeRefused, broker.CodeUnhealthy)
	assert.Contains(t, r.Error, "adb: device offline")

	// A recheck passes; the next check after a timeout passes too: the task runs.
	recv(t, entered, "the recheck")
	answer <- nil
	f.waitState("d1", broker.StateOnline)
	expect(t, f.submit(broker.TaskRequest{ID: "t2", Serial: "d1", Tool: "block", TimeoutMS: 30}).wait(), broker.OutcomeTimedOut, "")
	recv(t, entered, "the check after the second timeout")
	held = f.submit(broker.TaskRequest{ID: "n2", Serial: "d1", Tool: "noop"})
	f.leases()
	unanswered(t, held, "a task that came during the second check")
	answer <- nil
	expect(t, held.wait(), broker.OutcomeSucceeded, "")
}

// A health check whose driver ignores its timeout too cannot hold the device for ever: it is
// answered as failed at twice its timeout and the device shows unhealthy; no second check
// piles up behind it; when it returns at last, its answer counts.
func TestHealthCheckThatNeverReturnsIsFailedAndNotRepeated(t *testing.T) {
	dev := newRig(t, "d1")
	var deaf atomic.Bool
	var inflight, most atomic.Int32
	wake := make(chan struct{})
	dev.health = func(context.Context) error {
		if !deaf.Load() {
			return nil
		}
		n := inflight.Add(1)
		defer inflight.Add(-1)
		if n > most.Load() {
			most.Store(n)
		}
		<-wake // ignores its context
		return nil
	}
	f := newFarm(t, Config{Grace: 50 * time.Millisecond}, dev)
	f.waitState("d1", broker.StateOnline)
	deaf.Store(true)

	expect(t, f.submit(broker.TaskRequest{ID: "t", Serial: "d1", Tool: "block", TimeoutMS: 30}).wait(), broker.OutcomeTimedOut, "")
	queued := f.submit(broker.TaskRequest{ID: "q", Serial: "d1", Tool: "noop", WaitMS: 60_000})
	f.waitState("d1", broker.StateUnhealthy)
	require.True(t, strings.Contains(f.entry("d1").Reason, "did not answer a health check within 150ms"), f.entry("d1").Reason)
	// Rechecks come every second at first: over two of them, the hung check stays the only one.
	for end := time.Now().Add(2500 * time.Millisecond); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		require.LessOrEqual(t, most.Load(), int32(1), "health checks in flight at once")
	}
	unanswered(t, queued, "a task queued on a device whose check never answered")
	close(wake)
	expect(t, queued.wait(), broker.OutcomeSucceeded, "")
	assert.Equal(t, int32(1), most.Load())
}
