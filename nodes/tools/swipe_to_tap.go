package tools

import (
	"context"
	"fmt"
	"time"
)

// MaxSwipesToTap bounds the swipes of swipe_to_tap_app, swipe_to_tap_text and swipe_to_tap_texts.
const MaxSwipesToTap = 50

// swipePhase is a run of swipes in one direction (where the finger moves), at most max.
type swipePhase struct {
	dir string
	max int
}

// swipeToFind looks for qs, swiping between looks, phase after phase, until one is found, a
// phase's swipes are spent, or a swipe leaves the screen as it was (the end of the list). It
// returns the last look and the swipes made; a look that could not search (blind) ends it.
func swipeToFind(ctx context.Context, t *Task, qs []textQuery, index int, phases []swipePhase, interval time.Duration) (screenLook, int, error) {
	look, err := lookFor(ctx, t, qs, index, nil)
	if err != nil || look.found || look.blind() {
		return look, 0, err
	}
	total := 0
	for _, ph := range phases {
		total += ph.max
	}
	swipes := 0
	for _, ph := range phases {
		for range ph.max {
			if _, err := runSwipe(ctx, t, &SwipeArgs{Direction: ph.dir}); err != nil {
				return look, swipes, fmt.Errorf("swipe %s (after %d swipes): %w", ph.dir, swipes, err)
			}
			swipes++
			if t.Progress != nil {
				t.Progress(float64(swipes), float64(total), fmt.Sprintf("swiped %s %d times, looking again", ph.dir, swipes))
			}
			if err := pause(ctx, interval); err != nil {
				return look, swipes, err
			}
			prev := look.frame
			if look, err = lookFor(ctx, t, qs, index, look.ocrErr); err != nil || look.found {
				return look, swipes, err
			}
			if look.frame != 0 && look.frame == prev {
				break // the swipe moved nothing: the end of the list
			}
		}
	}
	return look, swipes, nil
}

// swipeInterval is the pause after a swipe, for the list to settle: interval seconds, or half
// a second.
func swipeInterval(interval float64) time.Duration {
	if interval > 0 {
		return seconds(interval)
	}
	return 500 * time.Millisecond
}
