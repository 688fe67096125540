package grbl_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/grbl"
	"github.com/corral-farm/corral/internal/logtest"
)

// resetLines are the lines out logged about controller resets.
func resetLines(out *logtest.Buffer) []string {
	var got []string
	for l := range strings.Lines(out.String()) {
		if strings.Contains(l, "grbl controller reset") {
			got = append(got, l)
		}
	}
	return got
}

// An emergency stop during a gesture makes two Stops at once (the gesture's own and the
// halt's): the second joins the first, so the controller is reset once, and that reset, the
// client's own doing, is logged once at INFO (it was two resets, each a WARN). A reset the
// client did not ask for is still a warning.
func TestConcurrentStopsResetOnceAndOwnResetsAreRoutine(t *testing.T) {
	var out logtest.Buffer
	r := newRig(t, nil, grbl.WithLogger(slog.New(slog.NewTextHandler(&out, nil))))
	ctx := ctxT(t)
	if err := r.c.Rapid(ctx, 150, 0); err != nil {
		t.Fatal(err)
	}
	r.tick(500 * time.Millisecond)
	resets := r.tap.count(0x18)
	first := goCall(func() (grbl.Status, error) { return r.c.Stop(ctx) })
	waitFor(t, "the hold", func() bool { return r.sim.Snapshot().State == "Hold:1" })
	second := goCall(func() (grbl.Status, error) { return r.c.Stop(ctx) })
	if _, err := pump(r, first); err != nil {
		t.Fatalf("the first stop: %v", err)
	}
	if _, err := pump(r, second); err != nil {
		t.Fatalf("the stop that joined it: %v", err)
	}
	fingerUp(t, r.sim, "after the stops")
	if n := r.tap.count(0x18) - resets; n != 1 {
		t.Fatalf("two stops at once sent %d resets, want 1", n)
	}
	waitFor(t, "the reset's line", func() bool { return len(resetLines(&out)) > 0 })
	if got := resetLines(&out); len(got) != 1 || !strings.Contains(got[0], "level=INFO") {
		t.Fatalf("the client's own reset logged as %q, want one INFO line", got)
	}

	r.sim.SpontaneousReset()
	waitFor(t, "the spontaneous reset's line", func() bool { return len(resetLines(&out)) > 1 })
	if got := resetLines(&out)[1]; !strings.Contains(got, "level=WARN") || !strings.Contains(got, "by itself") {
		t.Fatalf("a reset the client did not ask for logged as %q, want a WARN saying so", got)
	}
	r.usable(r.c)
}
