package tools

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"testing"
)

// psnr is the peak signal-to-noise ratio of a decoded JPEG against the image it encoded, in dB.
func psnr(t *testing.T, data []byte, want *image.RGBA) float64 {
	t.Helper()
	got := decodeYCbCr(t, data)
	if got.Rect.Size() != want.Rect.Size() {
		t.Fatalf("decoded %v, want %v", got.Rect.Size(), want.Rect.Size())
	}
	var se float64
	for y := range want.Rect.Dy() {
		for x := range want.Rect.Dx() {
			c := got.YCbCrAt(x, y)
			r, g, b := color.YCbCrToRGB(c.Y, c.Cb, c.Cr)
			p := want.Pix[want.PixOffset(want.Rect.Min.X+x, want.Rect.Min.Y+y):]
			dr, dg, db := float64(r)-float64(p[0]), float64(g)-float64(p[1]), float64(b)-float64(p[2])
			se += dr*dr + dg*dg + db*db
		}
	}
	if se == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255*3*float64(want.Rect.Dx()*want.Rect.Dy())/se)
}

// encodeRGBA makes JPEGs as faithful as image/jpeg's, and about as small, of every kind of
// picture, size and origin.
func TestEncodeRGBAAsGoodAsImageJPEG(t *testing.T) {
	flat := image.NewRGBA(image.Rect(0, 0, 100, 70))
	for i := range flat.Pix {
		flat.Pix[i] = []byte{30, 144, 255, 255}[i%4]
	}
	for name, img := range map[string]*image.RGBA{
		"screen":     screenLike(541, 1201),
		"busy":       testImage(300, 600),
		"noise":      noise(301, 157, 4),
		"flat":       flat,
		"sub-image":  testImage(300, 600).SubImage(image.Rect(10, 21, 290, 590)).(*image.RGBA),
		"one pixel":  noise(1, 1, 5),
		"one MCU":    noise(16, 16, 6),
		"odd":        screenLike(17, 9),
		"saturated":  testImage(256, 256),
		"white text": screenLike(300, 300),
	} {
		for _, q := range []int{85, 70, 50} {
			var std bytes.Buffer
			if err := jpeg.Encode(&std, img, &jpeg.Options{Quality: q}); err != nil {
				t.Fatal(err)
			}
			mine, err := encodeRGBA(t.Context(), img, q)
			if err != nil {
				t.Fatalf("%s q%d: %v", name, q, err)
			}
			pm, ps := psnr(t, mine, img), psnr(t, std.Bytes(), img)
			if pm < ps-0.05 || float64(len(mine)) > 1.02*float64(std.Len())+64 {
				t.Errorf("%s q%d: %d bytes at %.2f dB; image/jpeg %d bytes at %.2f dB", name, q, len(mine), pm, std.Len(), ps)
			}
		}
	}
}

// ycc converts as color.RGBToYCbCr does, every colour.
func TestYCCIsRGBToYCbCr(t *testing.T) {
	for c := range 1 << 24 {
		r, g, b := uint8(c>>16), uint8(c>>8), uint8(c)
		y, cb, cr := ycc(r, g, b)
		wy, wcb, wcr := color.RGBToYCbCr(r, g, b)
		if y != int32(wy) || cb != int32(wcb) || cr != int32(wcr) {
			t.Fatalf("(%d,%d,%d): %d,%d,%d; want %d,%d,%d", r, g, b, y, cb, cr, wy, wcb, wcr)
		}
	}
}

// The tables are image/jpeg's: the same header, the quality's quantizers.
func TestJPEGTablesAreImageJPEGs(t *testing.T) {
	img := noise(32, 32, 7)
	var std bytes.Buffer
	if err := jpeg.Encode(&std, img, &jpeg.Options{Quality: 70}); err != nil {
		t.Fatal(err)
	}
	mine, err := encodeRGBA(t.Context(), img, 70)
	if err != nil {
		t.Fatal(err)
	}
	h1, _, err := splitJPEG(std.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	h2, _, err := splitJPEG(mine)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(h1, h2) {
		t.Error("the header differs from image/jpeg's")
	}
	if _, err := readTables(h1[:len(h1)/2]); err == nil {
		t.Error("half a header gave tables")
	}
}

// BenchmarkEncodeRGBA compares encodeRGBA with image/jpeg on a phone-sized screen.
func BenchmarkEncodeRGBA(b *testing.B) {
	img := screenLike(1080, 2400)
	b.Run("image-jpeg", func(b *testing.B) {
		for b.Loop() {
			if err := jpeg.Encode(&bytes.Buffer{}, img, &jpeg.Options{Quality: 85}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encodeRGBA", func(b *testing.B) {
		for b.Loop() {
			if _, err := encodeRGBA(b.Context(), img, 85); err != nil {
				b.Fatal(err)
			}
		}
	})
}
