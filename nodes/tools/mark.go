package tools

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"

	"github.com/corral-farm/corral/nodes/device"
)

// pre_mark_operation: before each gesture the node captures the screen it acts on and draws
// the gesture on it, magenta on a white halo: a touch as a ring with a cross at the point (two
// rings for a double tap), a move as a line from a dot at its start to an arrow head at its
// end, and the box aimed at (a bbox, a found button) as a rectangle. The marks are kept in memory as JPEG and saved in
// the screenshot store when the task has succeeded, so that its result names them all and
// none is left unnamed; a screen that cannot be captured is reported and the gesture goes on.

// Marks' looks.
var markColour = color.RGBA{R: 255, G: 0, B: 255, A: 255} // magenta: few screens show it

const (
	markWidth = 540 // px: a marked screen is scaled down to this, as agent tasks' screens are
	markLine  = 4   // px wide lines: JPEG keeps their colour
	markRing  = 22  // px radius of a touch's ring
	markCross = 9   // px from a touch's point to its cross's ends
	markHead  = 24  // px long arrow head
	// maxMarks bounds the marks a task keeps (swipe_to_tap_text may swipe 50 times): past it the
	// last is replaced, so that the task's final gesture is always kept.
	maxMarks = 4
)

// markSaver is a ScreenshotSaver that counts marked screenshots apart and tells why one was
// not made (nodes.ScreenshotSaver): without it marks are saved as any screenshot.
type markSaver interface {
	SaveMarked(ctx context.Context, task string, jpeg []byte) (string, error)
	MarkFailed(task string, err error)
}

// mark captures the screen g is about to act on, s in size, and keeps it marked.
func (a *acting) mark(ctx context.Context, t *Task, g gesture, s device.Size) {
	saver := t.env().Config.Screenshots
	if saver == nil {
		return // nowhere to keep it
	}
	jpg, err := markedScreen(ctx, t.Driver, g, a.aim, s)
	if err != nil {
		if ms, ok := saver.(markSaver); ok && ctx.Err() == nil {
			ms.MarkFailed(t.ID, err)
		}
		return
	}
	if len(a.marks) == maxMarks {
		a.marks[maxMarks-1] = jpg
	} else {
		a.marks = append(a.marks, jpg)
	}
}

// keepMarks saves a task's marks and returns the names of those kept, in order; the saver
// counts and logs those it could not keep. Saving outlives the task's cancellation briefly,
// as agent tasks' screenshots do.
func keepMarks(ctx context.Context, t *Task, marks [][]byte) []string {
	saver := t.env().Config.Screenshots
	if len(marks) == 0 || saver == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), screenshotSaveTimeout)
	defer cancel()
	save := saver.SaveScreenshot
	if ms, ok := saver.(markSaver); ok {
		save = ms.SaveMarked
	}
	var names []string
	for _, jpg := range marks {
		if name, err := save(ctx, t.ID, jpg); err == nil {
			names = append(names, name)
		}
	}
	return names
}

// markedScreen is the screen of d, at most markWidth wide, with g drawn on it (and box, if
// any), as JPEG; s is the screen's size in the pixels of g and box.
func markedScreen(ctx context.Context, d device.Driver, g gesture, box image.Rectangle, s device.Size) ([]byte, error) {
	shot, err := d.Screenshot(ctx)
	if err != nil {
		return nil, fmt.Errorf("capture the screen to mark: %w", err)
	}
	if shot, err = FitWidth(ctx, shot, markWidth); err != nil {
		return nil, err
	}
	b := shot.Bounds()
	if b.Empty() || s.Width <= 0 || s.Height <= 0 {
		return nil, fmt.Errorf("capture the screen to mark: an empty screen (%v, screen %dx%d)", b, s.Width, s.Height)
	}
	canvas := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy())) // a copy: the driver's image is not ours
	draw.Draw(canvas, canvas.Bounds(), shot, b.Min, draw.Src)
	m := marker{img: canvas, sx: float64(b.Dx()) / float64(s.Width), sy: float64(b.Dy()) / float64(s.Height)}
	m.gesture(g, box)
	jpg, err := EncodeJPEG(ctx, canvas, MaxImageBytes)
	if err != nil {
		return nil, fmt.Errorf("encode the marked screen: %w", err)
	}
	return jpg, nil
}
