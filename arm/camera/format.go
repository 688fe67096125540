package camera

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"slices"
	"strings"
)

// Pixel formats (V4L2 fourcc codes) a V4L2 camera can be read in.
const (
	FourCCMJPEG uint32 = 'M' | 'J'<<8 | 'P'<<16 | 'G'<<24
	FourCCYUYV  uint32 = 'Y' | 'U'<<8 | 'Y'<<16 | 'V'<<24
)

// SizeRange is a camera's frame sizes for one format: one size when the steps are 0, else
// every size from min to max in steps.
type SizeRange struct {
	MinW, MaxW, StepW uint32
	MinH, MaxH, StepH uint32
}

// Format is a pixel format and a frame size to capture.
type Format struct {
	FourCC uint32
	W, H   int
}

func fourcc(c uint32) string {
	return string([]byte{byte(c), byte(c >> 8), byte(c >> 16), byte(c >> 24)})
}

// ChooseFormat picks how to read a camera: MJPEG if it offers it (small frames over USB),
// else YUYV, at the offered size nearest to w×h (the largest when w×h is 0×0).
func ChooseFormat(formats map[uint32]string, sizes func(fourcc uint32) []SizeRange, w, h int) (Format, error) {
	for _, f := range []uint32{FourCCMJPEG, FourCCYUYV} {
		if _, ok := formats[f]; !ok {
			continue
		}
		var best Format
		bestCost, found := 0, false
		for _, s := range sizes(f) {
			cw, ch := nearest(s.MinW, s.MaxW, s.StepW, w), nearest(s.MinH, s.MaxH, s.StepH, h)
			cost := abs(cw-w) + abs(ch-h)
			if w == 0 && h == 0 {
				cost = -cw * ch // the largest
			}
			if cw <= 0 || ch <= 0 {
				continue
			}
			if !found || cost < bestCost || cost == bestCost && cw*ch > best.W*best.H {
				best, bestCost, found = Format{FourCC: f, W: cw, H: ch}, cost, true
			}
		}
		if found {
			return best, nil
		}
	}
	var offered []string
	for f, name := range formats {
		offered = append(offered, fmt.Sprintf("%s (%s)", fourcc(f), name))
	}
	slices.Sort(offered)
	return Format{}, fmt.Errorf("camera: format not supported: the camera offers %s; Corral reads MJPEG or YUYV (check v4l2-ctl --list-formats-ext)", strings.Join(offered, ", "))
}

// nearest is the value of min..max in steps nearest to want.
func nearest(min, max, step uint32, want int) int {
	if step == 0 || want <= int(min) {
		if step == 0 {
			return int(max) // a discrete size
		}
		return int(min)
	}
	if want >= int(max) {
		return int(max)
	}
	k := (want - int(min) + int(step)/2) / int(step)
	return int(min) + k*int(step)
}

func abs(v int) int { return max(v, -v) }

// YUYVImage is a YUYV (4:2:2, Y0 U Y1 V) frame of w×h as an image, without converting it:
// its planes are the frame's bytes de-interleaved. stride is the bytes a row (0: 2w).
func YUYVImage(buf []byte, w, h, stride int) (*image.YCbCr, error) {
	if stride == 0 {
		stride = 2 * w
	}
	if w <= 0 || h <= 0 || w%2 != 0 || w*h > MaxFramePixels || stride < 2*w {
		return nil, fmt.Errorf("%w: a %d×%d YUYV frame (stride %d): the width must be even and positive", ErrBadFrame, w, h, stride)
	}
	if len(buf) < stride*(h-1)+2*w {
		return nil, fmt.Errorf("%w: a %d×%d YUYV frame needs %d bytes, got %d", ErrBadFrame, w, h, stride*(h-1)+2*w, len(buf))
	}
	img := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio422)
	for y := 0; y < h; y++ {
		row := buf[y*stride : y*stride+2*w]
		yr := img.Y[y*img.YStride : y*img.YStride+w]
		cb := img.Cb[y*img.CStride : y*img.CStride+w/2]
		cr := img.Cr[y*img.CStride : y*img.CStride+w/2]
		for x := 0; x < w/2; x++ {
			q := row[4*x : 4*x+4 : 4*x+4]
			yr[2*x], cb[x], yr[2*x+1], cr[x] = q[0], q[1], q[2], q[3]
		}
	}
	return img, nil
}

// huffmanTables are the standard JPEG Huffman tables (ITU T.81 Annex K) as DHT segments,
// which many USB cameras leave out of their MJPEG frames. Go's encoder writes exactly
// those, so they are taken from a tiny JPEG it encodes.
func huffmanTables() []byte {
	var b bytes.Buffer
	_ = jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, 8, 8)), nil)
	var out []byte
	data := b.Bytes()
	for i := 2; i+4 <= len(data) && data[i] == 0xff; {
		marker, n := data[i+1], int(data[i+2])<<8|int(data[i+3])
		if marker == 0xda || i+2+n > len(data) {
			break
		}
		if marker == 0xc4 {
			out = append(out, data[i:i+2+n]...)
		}
		i += 2 + n
	}
	return out
}

// withHuffman is an MJPEG frame with the standard Huffman tables put in after SOI when it
// has none of its own.
func withHuffman(frame, tables []byte) []byte {
	if len(frame) < 4 || frame[0] != 0xff || frame[1] != 0xd8 {
		return frame
	}
	for i := 2; i+4 <= len(frame) && frame[i] == 0xff; {
		marker, n := frame[i+1], int(frame[i+2])<<8|int(frame[i+3])
		if marker == 0xc4 {
			return frame // has its own
		}
		if marker == 0xda {
			break
		}
		i += 2 + n
	}
	out := make([]byte, 0, len(frame)+len(tables))
	out = append(out, frame[:2]...)
	out = append(out, tables...)
	return append(out, frame[2:]...)
}
