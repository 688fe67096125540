package sim

import (
	"errors"
	"testing"

	"github.com/corral-farm/corral/internal/ctxtest"
)

// A screenshot whose task's deadline passes while the screen is drawn stops drawing at the next
// element, answers the cause, and keeps nothing half drawn: the next screenshot is the whole
// screen. Drawn to its end, it held a core for a task that had answered.
func TestScreenshotStopsPartWayWhenItsContextEnds(t *testing.T) {
	p := New("s")
	must(t, p.LaunchApp(ctxT(t), "com.corral.settings"))
	full := ctxtest.New(t, 1<<62)
	if _, err := p.Screenshot(full); err != nil {
		t.Fatal(err)
	}
	p.drawn.forget()
	ctx := ctxtest.New(t, 3)
	if img, err := p.Screenshot(ctx); !errors.Is(err, ctxtest.ErrTaskDeadline) {
		t.Fatalf("a screenshot whose ctx ended at look 4: %v, %v; want the cause %q", img != nil, err, ctxtest.ErrTaskDeadline)
	}
	// Past the end: one look by context.Cause.
	if looks, all := ctx.Looks(), full.Looks(); looks > 5 || all < 20 {
		t.Errorf("%d looks at ctx, though it ended at look 4 (%d for the whole screen): it went on drawing", looks, all)
	}
	if !samePixels(shown(t, p), fresh(p)) {
		t.Error("the screen drawn after a screenshot that stopped is not the whole screen")
	}
}
