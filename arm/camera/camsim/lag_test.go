package camsim

import (
	"context"
	"image"
	"image/draw"
	"testing"

	"github.com/corral-farm/corral/internal/lens"
)

// A lagging camera hands out the frame from before a change, then the changed one.
func TestLagHandsOutFramesLate(t *testing.T) {
	ctx := context.Background()
	var screen image.Image = image.NewRGBA(image.Rect(0, 0, 270, 600))
	cam := New(func(context.Context) (image.Image, error) { return screen, nil }, lens.Plain(270, 600))
	defer cam.Close()
	if err := cam.SetLag(-1); err == nil {
		t.Fatal("a lag of -1 frames was taken")
	}
	if err := cam.SetLag(1); err != nil {
		t.Fatal(err)
	}
	bright := func() bool {
		t.Helper()
		f, err := cam.Frame(ctx)
		if err != nil {
			t.Fatal(err)
		}
		r, _, _, _ := f.At(135, 300).RGBA()
		return r>>8 > 128
	}
	if bright() {
		t.Fatal("the first frame of a black screen is bright")
	}
	white := image.NewRGBA(image.Rect(0, 0, 270, 600))
	draw.Draw(white, white.Rect, image.White, image.Point{}, draw.Src)
	screen = white
	if bright() {
		t.Fatal("a camera one frame late showed the change at once")
	}
	if !bright() {
		t.Fatal("a camera one frame late did not show the change a frame later")
	}
	if err := cam.SetLag(0); err != nil {
		t.Fatal(err)
	}
	screen = image.NewRGBA(image.Rect(0, 0, 270, 600))
	if bright() {
		t.Fatal("a camera without lag showed the screen from before")
	}
}
