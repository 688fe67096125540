package sim

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

// endsAfter is a task's context whose deadline passes at its n+1th look (Err), wherever the
// drawing is then. It ends with a cause, as the scheduler's deadline does.
type endsAfter struct {
	context.Context
	cancel context.CancelCauseFunc
	looks  atomic.Int64
	n      int64
}

var errTaskDeadline = errors.New("the task's deadline passed")

func newEndsAfter(t testing.TB, n int64) *endsAfter {
	ctx, cancel := context.WithCancelCause(context.Background())
	t.Cleanup(func() { cancel(nil) })
	return &endsAfter{Context: ctx, cancel: cancel, n: n}
}

func (c *endsAfter) Err() error {
	if c.looks.Add(1) > c.n {
		c.cancel(errTaskDeadline)
	}
	return c.Context.Err()
}

// A screenshot whose task's deadline passes while the screen is drawn stops drawing at the next
// element, answers the cause, and keeps nothing half drawn: the next screenshot is the whole
// screen. Drawn to its end, it held a core for a task that had answered.
func TestScreenshotStopsPartWayWhenItsContextEnds(t *testing.T) {
	p := New("s")
	must(t, p.LaunchApp(ctxT(t), "com.corral.settings"))
	full := newEndsAfter(t, 1<<62)
	if _, err := p.Screenshot(full); err != nil {
		t.Fatal(err)
	}
	p.drawn.forget()
	ctx := newEndsAfter(t, 3)
	if img, err := p.Screenshot(ctx); !errors.Is(err, errTaskDeadline) {
		t.Fatalf("a screenshot whose ctx ended at look 4: %v, %v; want the cause %q", img != nil, err, errTaskDeadline)
	}
	// Past the end: one look by context.Cause.
	if looks, all := ctx.looks.Load(), full.looks.Load(); looks > 5 || all < 20 {
		t.Errorf("%d looks at ctx, though it ended at look 4 (%d for the whole screen): it went on drawing", looks, all)
	}
	if !samePixels(shown(t, p), fresh(p)) {
		t.Error("the screen drawn after a screenshot that stopped is not the whole screen")
	}
}
