package grbl_test

import (
	"errors"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/grbl"
)

// Ignoring counts the status requests a frozen controller left unanswered, not only the time
// since its last report: a loaded host whose poll loop asked late has not seen the silence
// it would call the controller's. Once it answers again, Answering says so.
func TestIgnoringCountsUnansweredRequests(t *testing.T) {
	r := newRig(t, nil, grbl.WithLinkTimeout(time.Minute))
	ctx := ctxT(t)
	if err := r.c.Answering(ctx, time.Second); err != nil {
		t.Fatalf("the controller before the freeze: %v", err)
	}
	r.sim.Stall(time.Hour) // on the fake clock, which stands still: until StallUntil
	before := r.tap.count('?')

	const asks = 20 // two seconds of requests at the tests' 10 Hz; the time bound is 50 ms
	err := r.c.Ignoring(ctx, 50*time.Millisecond, asks)
	if !errors.Is(err, grbl.ErrSilent) {
		t.Fatalf("Ignoring on a frozen controller: %v; want ErrSilent", err)
	}
	// One request may have gone out before the freeze, after the last report.
	if sent := r.tap.count('?') - before; sent < asks-1 {
		t.Fatalf("Ignoring said the controller is silent after %d status requests since the freeze; want at least %d: %v", sent, asks-1, err)
	}
	t.Logf("silent after %d requests: %v", r.tap.count('?')-before, err)

	r.sim.StallUntil(time.Time{})
	if err := r.c.Answering(ctx, time.Second); err != nil {
		t.Fatalf("the controller after the thaw: %v", err)
	}
}
