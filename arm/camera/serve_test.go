package camera

import (
	"context"
	"image"
	"image/color"
	"image/draw"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// A FrameFunc that gives the very image it gave last says the picture did not change, and
// the stream sends it again as it encoded it: a simulated camera's unchanged 1080×1920 frame
// was encoded afresh five times a second, keeping a core busy. Here the FrameFunc draws on
// its image behind the stream's back at the third frame; the stream, not encoding the very
// same image again, goes on sending what it was.
func TestUnchangedFrameIsNotEncodedAgain(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	draw.Draw(img, img.Rect, image.NewUniform(color.RGBA{R: 200, A: 255}), image.Point{}, draw.Src)
	var calls atomic.Int32
	frames := func(context.Context) (image.Image, error) {
		if calls.Add(1) == 3 {
			draw.Draw(img, img.Rect, image.NewUniform(color.RGBA{B: 200, A: 255}), image.Point{}, draw.Src)
		}
		return img, nil
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ServeMJPEG(w, r, frames, StreamOptions{FPS: 50})
	}))
	defer srv.Close()
	ctx := context.Background()
	m, err := OpenMJPEG(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	waitFor(t, "the fifth frame asked for", func() bool { return calls.Load() >= 5 })
	f, err := m.Frame(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r := red(f); r < 150 {
		t.Fatalf("the stream encoded the very same image again (red %d, want about 200)", r)
	}
}
