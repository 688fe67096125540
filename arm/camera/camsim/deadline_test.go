package camsim

import (
	"context"
	"errors"
	"image"
	"image/draw"
	"testing"

	"github.com/corral-farm/corral/internal/lens"
)

// A frame asked for by a caller whose ctx ends while it renders (a rig's screenshot with a
// short deadline) answers ctx's error at once, not the frame a second later: the render goes
// on, and the next caller finds its frame kept. A render of a phone-sized screen takes a
// second (ten under -race), past the grace a cancelled driver has; the screenshot that waited
// for it made its rig unhealthy.
func TestFrameEndsWithItsCallersContext(t *testing.T) {
	screen := image.NewRGBA(image.Rect(0, 0, 540, 1200))
	draw.Draw(screen, screen.Rect, image.White, image.Point{}, draw.Src)
	c := lens.Mild(1, 540, 1200).Scaled(0.5)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cam := New(func(context.Context) (image.Image, error) {
		cancel() // the caller gives up as the render starts
		return screen, nil
	}, c)
	defer cam.Close()
	frame, err := cam.Frame(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a frame for a caller that gave up while it rendered: %v, %v; want context.Canceled", frame != nil, err)
	}
	// The render went on: once it lets go of the camera, its frame is kept.
	cam.rendering <- struct{}{}
	cam.mu.Lock()
	kept := cam.kept.find(screen, c)
	cam.mu.Unlock()
	<-cam.rendering
	if kept == nil {
		t.Fatal("the render the caller gave up on was not kept for the next caller")
	}
	want, err := lens.Render(screen, c)
	if err != nil {
		t.Fatal(err)
	}
	if !equalPix(kept, want) {
		t.Fatal("the frame kept is not the screen's render")
	}
}

func equalPix(a, b *image.RGBA) bool {
	return a.Rect == b.Rect && string(a.Pix) == string(b.Pix)
}
