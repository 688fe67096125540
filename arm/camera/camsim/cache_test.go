package camsim

import (
	"bytes"
	"context"
	"image"
	"image/draw"
	"testing"

	"github.com/corral-farm/corral/internal/lens"
)

// An unchanged screen is rendered once: a stream of it (5 frames a second) rendered every
// frame, which on a loaded machine took longer than the rig waits for its calibration page.
// A changed screen, even one drawn into the same image, or new conditions, render again; a
// screen shown two frames ago (the phone's, then the page, then the phone's) does not.
func TestUnchangedScreenIsRenderedOnce(t *testing.T) {
	ctx := context.Background()
	screen := image.NewRGBA(image.Rect(0, 0, 270, 600)) // one image the phone draws into
	draw.Draw(screen, screen.Rect, image.White, image.Point{}, draw.Src)
	c := lens.Mild(1, 270, 600).Scaled(0.4)
	cam := New(func(context.Context) (image.Image, error) { return screen, nil }, c)
	defer cam.Close()
	render := func() *image.RGBA {
		t.Helper()
		f, err := cam.render(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	first := render()
	if render() != first {
		t.Fatal("the unchanged screen was rendered again")
	}
	want, err := lens.Render(screen, c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Pix, want.Pix) {
		t.Fatal("the kept frame is not the screen's rendering")
	}
	// Frame hands out a copy: a caller that draws on it changes no one else's frame.
	f, err := cam.Frame(ctx)
	if err != nil {
		t.Fatal(err)
	}
	draw.Draw(f.(*image.RGBA), f.Bounds(), image.Black, image.Point{}, draw.Src)
	if !bytes.Equal(render().Pix, want.Pix) {
		t.Fatal("drawing on a frame Frame gave changed the kept one")
	}

	draw.Draw(screen, image.Rect(0, 0, 100, 100), image.Black, image.Point{}, draw.Src)
	changed := render()
	if changed == first {
		t.Fatal("the screen changed (in the same image), and the camera gave the frame from before")
	}
	if want, _ = lens.Render(screen, c); !bytes.Equal(changed.Pix, want.Pix) {
		t.Fatal("the frame of the changed screen is not its rendering")
	}
	// The screen as it was before (the phone's, after the calibration page) is kept too.
	draw.Draw(screen, image.Rect(0, 0, 100, 100), image.White, image.Point{}, draw.Src)
	if render() != first {
		t.Fatal("the screen went back to what it was, and was rendered again")
	}
	c.Glare = 0
	if err := cam.SetConditions(c); err != nil {
		t.Fatal(err)
	}
	if render() == first {
		t.Fatal("the conditions changed, and the camera gave the frame from before")
	}
}

// Frames asked for at once, as by a stream and the one its client opened again while the
// first still rendered, render the screen once: each render beside another took longer, and
// on a loaded machine every stream stalled before its first frame.
func TestConcurrentFramesRenderOnce(t *testing.T) {
	ctx := context.Background()
	screen := image.NewRGBA(image.Rect(0, 0, 270, 600))
	draw.Draw(screen, screen.Rect, image.White, image.Point{}, draw.Src)
	cam := New(func(context.Context) (image.Image, error) { return screen, nil }, lens.Mild(1, 270, 600).Scaled(0.4))
	defer cam.Close()
	const n = 4
	start := make(chan struct{})
	got := make(chan *image.RGBA, n)
	for range n {
		go func() {
			<-start
			f, err := cam.render(ctx)
			if err != nil {
				t.Error(err)
			}
			got <- f
		}()
	}
	close(start)
	first := <-got
	for range n - 1 {
		if f := <-got; f != first {
			t.Fatal("the same screen was rendered more than once for frames asked for at once")
		}
	}
}
