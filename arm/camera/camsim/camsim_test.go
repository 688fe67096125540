package camsim

import (
	"context"
	"errors"
	"image"
	"image/draw"
	"testing"

	"github.com/corral-farm/corral/arm/camera"
	"github.com/corral-farm/corral/internal/lens"
)

func TestCameraOverMJPEG(t *testing.T) {
	screen := image.NewRGBA(image.Rect(0, 0, 270, 600))
	draw.Draw(screen, screen.Rect, image.White, image.Point{}, draw.Src)
	c := lens.Mild(1, 270, 600).Scaled(0.4)
	cam := New(func(ctx context.Context) (image.Image, error) { return screen, nil }, c)
	defer cam.Close()
	url, err := cam.Serve("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	src, err := camera.OpenMJPEG(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	frame, err := src.Frame(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if frame.Bounds().Dx() != c.FrameW || frame.Bounds().Dy() != c.FrameH {
		t.Fatalf("frame %v, want %d×%d", frame.Bounds(), c.FrameW, c.FrameH)
	}
	// The screen's centre is bright, the corner of the frame is the dark mat.
	ctr := c.ScreenToFrame().Apply(struct{ X, Y float64 }{135, 300})
	if r, _, _, _ := frame.At(int(ctr.X), int(ctr.Y)).RGBA(); r>>8 < 200 {
		t.Errorf("screen centre %d", r>>8)
	}
	if r, _, _, _ := frame.At(1, 1).RGBA(); r>>8 > 80 {
		t.Errorf("frame corner %d", r>>8)
	}
	// Closing the camera ends the stream: the client says the camera is down.
	_ = cam.Close()
	if _, err := cam.Frame(ctx); !errors.Is(err, camera.ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	if _, err := src.Frame(ctx); !errors.Is(err, camera.ErrDown) {
		t.Fatalf("the client after the camera closed: %v", err)
	}
}

func TestBadConditions(t *testing.T) {
	cam := New(func(ctx context.Context) (image.Image, error) { return image.NewRGBA(image.Rect(0, 0, 10, 10)), nil }, lens.Conditions{})
	if _, err := cam.Frame(context.Background()); !errors.Is(err, lens.ErrConditions) {
		t.Fatalf("got %v", err)
	}
	if err := cam.SetConditions(lens.Conditions{}); !errors.Is(err, lens.ErrConditions) {
		t.Fatalf("got %v", err)
	}
}
