package android

import (
	"context"
	"errors"
	"testing"
	"time"
)

// timerLate is a context whose deadline has passed but whose timer has not ended it yet: the
// moment a dial's own timer, set from the deadline, may fire first.
type timerLate struct{ context.Context }

func (timerLate) Deadline() (time.Time, bool) { return time.Now().Add(-time.Millisecond), true }

// A call whose deadline passed as it dialled the adb server is the caller's deadline, not a
// device that left: the dial's "i/o timeout" and the presence question asked after it, which
// fails the same way, read as "device disconnected: ... check the cable", and the task was
// recorded failed (driver_error) rather than timed_out.
func TestPassedDeadlineIsNoDisconnect(t *testing.T) {
	_, d := newDevice(t)
	_, err := d.Source(timerLate{context.Background()})
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrDisconnected) {
		t.Fatalf("a call past its deadline: %v; want the deadline, not a disconnect", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := d.Source(ctx); err != nil {
		t.Fatalf("the next call, in time: %v", err)
	}
}
