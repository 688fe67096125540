package tools

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
	"testing"
)

// trickle streams img as a driver does its framebuffer: into a frame of its own, chunk rows
// at a time, telling rows after each chunk while the encoders read what came before.
type trickle struct {
	img   *image.RGBA
	chunk int
	other image.Image // returned instead of the frame, voiding the rows told
	err   error       // returned once the frame is in
}

func (s trickle) StreamScreenshot(_ context.Context, rows func(*image.RGBA, int)) (image.Image, error) {
	frame := image.NewRGBA(s.img.Rect)
	for n, h := 0, s.img.Rect.Dy(); n < h; {
		m := min(h, n+s.chunk)
		copy(frame.Pix[n*frame.Stride:m*frame.Stride], s.img.Pix[n*s.img.Stride:m*s.img.Stride])
		n = m
		rows(frame, n)
	}
	if s.err != nil {
		return nil, s.err
	}
	if s.other != nil {
		return s.other, nil
	}
	return frame, nil
}

// screenLike is a w×h picture as screens are: gradients, and a box edge every 100 pixels,
// small enough at the first quality for MaxImageBytes.
func screenLike(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := []byte{uint8(x / 5), uint8(y / 10), uint8((x + y) / 20), 0xff}
			if x%100 < 3 || y%100 < 3 {
				c = []byte{20, 20, 20, 0xff}
			}
			copy(img.Pix[img.PixOffset(x, y):], c)
		}
	}
	return img
}

// decodeYCbCr decodes a JPEG, failing the test if it does not decode.
func decodeYCbCr(t *testing.T, data []byte) *image.YCbCr {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the JPEG does not decode: %v", err)
	}
	return img.(*image.YCbCr)
}

// sameJPEGPixels says whether two JPEGs decode to the same pixels.
func sameJPEGPixels(t *testing.T, a, b []byte) bool {
	t.Helper()
	x, y := decodeYCbCr(t, a), decodeYCbCr(t, b)
	return x.Rect == y.Rect && bytes.Equal(x.Y, y.Y) && bytes.Equal(x.Cb, y.Cb) && bytes.Equal(x.Cr, y.Cr)
}

// A streamed frame, whole or scaled, decodes to exactly the pixels of the same image encoded
// in one piece after it arrived, whatever the size and however the rows trickle in.
func TestStreamedImageDecodesAsSerial(t *testing.T) {
	for _, tc := range []struct{ w, h, chunk, maxWidth int }{
		{1080, 2400, 37, 0}, {540, 1200, 1200, 0}, {1080, 2400, 1, 540}, {540, 1200, 300, 350},
		{541, 601, 129, 0}, {100, 100, 3, 0}, {64, 129, 5, 4000}, {700, 33, 1, 64},
	} {
		img := screenLike(tc.w, tc.h)
		out, err := streamedImage(context.Background(), trickle{img: img, chunk: tc.chunk}, tc.maxWidth)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		want := image.Image(img)
		if tc.maxWidth > 0 && tc.maxWidth < tc.w {
			want = shrinkAll(img, tc.maxWidth, fitHeight(img.Rect, tc.maxWidth))
		}
		serial, err := encodeOne(t.Context(), want, jpegQualities[0])
		if err != nil {
			t.Fatal(err)
		}
		if len(serial) > MaxImageBytes {
			t.Fatalf("%+v: the test image is too busy for the first quality", tc)
		}
		if !sameJPEGPixels(t, out.JPEG, serial) {
			t.Errorf("%+v: the streamed JPEG differs from a serial encoding of %v", tc, want.Bounds())
		}
		if r := out.Data.(ScreenshotResult); r.Width != want.Bounds().Dx() || r.Height != want.Bounds().Dy() || out.Image != nil {
			t.Errorf("%+v: the result says %dx%d (image %v), want %v", tc, r.Width, r.Height, out.Image != nil, want.Bounds())
		}
	}
}

// A driver that returns another image than the frame it streamed (a PNG after all) voids the
// strips: the image returned is what is encoded. An error is returned as it is.
func TestStreamedImageVoidedOrFailed(t *testing.T) {
	other := testImage(600, 900)
	out, err := streamedImage(context.Background(), trickle{img: testImage(1080, 2400), chunk: 100, other: other}, 300)
	if err != nil {
		t.Fatal(err)
	}
	want, err := encodeOne(t.Context(), fitted(t, other, 300), jpegQualities[0])
	if err != nil {
		t.Fatal(err)
	}
	if !sameJPEGPixels(t, out.JPEG, want) {
		t.Error("a voided stream did not give the image returned")
	}
	boom := errors.New("boom")
	if _, err := streamedImage(context.Background(), trickle{img: testImage(300, 700), chunk: 10, err: boom}, 0); !errors.Is(err, boom) {
		t.Errorf("the driver's error came back as %v", err)
	}
}

// A screen too busy for MaxImageBytes at the first quality gets the next ones, then halving;
// the result says the size that was sent.
func TestStreamedImageFitsTheLimit(t *testing.T) {
	out, err := streamedImage(context.Background(), trickle{img: noise(1080, 2400, 3), chunk: 256}, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := decodeYCbCr(t, out.JPEG)
	r := out.Data.(ScreenshotResult)
	if len(out.JPEG) > MaxImageBytes || r.Width != got.Rect.Dx() || r.Height != got.Rect.Dy() {
		t.Errorf("%d bytes, %v, the result says %dx%d", len(out.JPEG), got.Rect, r.Width, r.Height)
	}
}
