package camsim

import (
	"context"
	"image"
	"image/draw"
	"testing"

	"github.com/corral-farm/corral/internal/lens"
)

// A frame still rendering for the next caller stops when the camera closes: no caller is left
// to find it, and the render would hold a core for a second (ten under -race).
func TestCloseStopsTheRenderInProgress(t *testing.T) {
	screen := image.NewRGBA(image.Rect(0, 0, 540, 1200))
	draw.Draw(screen, screen.Rect, image.White, image.Point{}, draw.Src)
	c := lens.Mild(1, 540, 1200)
	var cam *Camera
	cam = New(func(context.Context) (image.Image, error) {
		cam.Close() // the rig's twin stops as the render starts
		return screen, nil
	}, c)
	if frame, err := cam.Frame(context.Background()); err == nil {
		t.Fatalf("a frame from a camera closed while it rendered: %v", frame.Bounds())
	}
	// The render let go of the camera: it kept no frame, it stopped.
	cam.rendering <- struct{}{}
	cam.mu.Lock()
	kept := cam.kept.find(screen, c)
	cam.mu.Unlock()
	if kept != nil {
		t.Fatal("the camera closed, and its render went on to the end")
	}
}
