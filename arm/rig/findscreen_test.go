package rig

import (
	"context"
	"testing"
	"time"
)

// A camera's frames lag: the first frame after the calibration page showed may be from before
// it, and on a slow camera (`corral sim arm` on a loaded machine took over 10 s a frame) it
// comes after the page's time is up. The rig looks on at the next frames, which show the page,
// rather than give up without having seen one.
func TestFindScreenLooksPastAFrameFromBeforeThePage(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tw, addr := servedTwin(t, 2)
	d := dialRig(ctx, t, tw, addr)
	if err := tw.Camera.SetLag(1); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Camera.Frame(ctx); err != nil { // the phone's own screen, handed out next
		t.Fatal(err)
	}
	_, _, stop, err := tw.ShowCalibration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	quad, err := d.findScreen(ctx, 0) // the time is up before the first frame comes
	if err != nil {
		t.Fatalf("the page was not found past the frame from before it: %v", err)
	}
	for i, want := range tw.Camera.Conditions().Quad {
		if got := quad[i]; got.Dist(want) > 3 {
			t.Errorf("corner %d found at %v, the camera sees it at %v", i, got, want)
		}
	}
}
