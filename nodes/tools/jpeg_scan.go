package tools

import (
	"context"
	"encoding/binary"
	"image"
)

// scan writes the entropy-coded data of a JPEG: 16x16 MCUs of four luma blocks and one block
// of each chroma, left to right, top to bottom, each block's DC as the difference from the
// last one of its component (jpegTables has the tables).
type scan struct {
	t           *jpegTables
	out         []byte
	acc, nBits  uint32   // bits not yet written, in acc's top nBits
	prev        [3]int32 // the last DC of Y, Cb, Cr
	y, cb, cr   [4][64]int32
	chroma      [64]int32
	coefficient [64]float32
}

// image writes m's MCUs; it stops with ctx's cause once ctx is done, looking at it once a
// lookRows.
func (s *scan) image(ctx context.Context, m *image.RGBA) error {
	b := m.Rect
	for y := b.Min.Y; y < b.Max.Y; y += 16 {
		if (y-b.Min.Y)%lookRows == 0 {
			if err := workEnded(ctx); err != nil {
				return err
			}
		}
		for x := b.Min.X; x < b.Max.X; x += 16 {
			if x+16 > b.Max.X || y+16 > b.Max.Y || !s.flatMCU(m, x, y) {
				s.mcu(m, x, y)
			}
		}
	}
	return nil
}

// flatMCU writes the MCU whose top left pixel is (x, y), if its 16x16 pixels (all inside m)
// are one colour, and says whether it did.
func (s *scan) flatMCU(m *image.RGBA, x, y int) bool {
	off := m.PixOffset(x, y)
	first := rgbAt(m.Pix, off)
	for j := range 16 {
		row := m.Pix[off+j*m.Stride : off+j*m.Stride+64]
		for k := 0; k < 64; k += 4 {
			if rgbAt(row, k) != first {
				return false
			}
		}
	}
	yy, cb, cr := ycc(m.Pix[off], m.Pix[off+1], m.Pix[off+2])
	for range 4 {
		s.flat(0, yy)
	}
	s.flat(1, cb)
	s.flat(2, cr)
	return true
}

// mcu writes the MCU whose top left pixel is (x, y), the edge pixels of m repeated past its
// right and bottom edges.
func (s *scan) mcu(m *image.RGBA, x, y int) {
	inside := x+16 <= m.Rect.Max.X && y+16 <= m.Rect.Max.Y
	for i := range 4 {
		px, py := x+(i&1)*8, y+(i&2)*4
		if inside && s.read(m, i, px, py) {
			s.flat(0, s.y[i][0])
		} else {
			if !inside {
				s.readEdge(m, i, px, py)
			}
			s.block(0, &s.y[i])
		}
	}
	subsample(&s.chroma, &s.cb)
	s.block(1, &s.chroma)
	subsample(&s.chroma, &s.cr)
	s.block(2, &s.chroma)
}

// read converts the 8x8 pixels from (x, y), all inside m, into block i of each component,
// and says whether they are one colour.
func (s *scan) read(m *image.RGBA, i, x, y int) (flat bool) {
	yb, cbb, crb := &s.y[i], &s.cb[i], &s.cr[i]
	off := m.PixOffset(x, y)
	first, flat := rgbAt(m.Pix, off), true
	for j := 0; j < 8 && flat; j++ {
		row := m.Pix[off+j*m.Stride : off+j*m.Stride+32]
		for k := 0; k < 32; k += 4 {
			if rgbAt(row, k) != first {
				flat = false
				break
			}
		}
	}
	if flat {
		yy, cb, cr := ycc(m.Pix[off], m.Pix[off+1], m.Pix[off+2])
		for k := range 64 {
			yb[k], cbb[k], crb[k] = yy, cb, cr
		}
		return true
	}
	for j := range 8 {
		row := m.Pix[off+j*m.Stride : off+j*m.Stride+32]
		for k := range 8 {
			p := row[4*k : 4*k+3 : 4*k+3]
			yb[8*j+k], cbb[8*j+k], crb[8*j+k] = ycc(p[0], p[1], p[2])
		}
	}
	return false
}

// readEdge is read for a block that reaches past m's right or bottom edge.
func (s *scan) readEdge(m *image.RGBA, i, x, y int) {
	b := m.Rect
	for j := range 8 {
		row := m.Pix[(min(y+j, b.Max.Y-1)-b.Min.Y)*m.Stride:]
		for k := range 8 {
			p := row[4*(min(x+k, b.Max.X-1)-b.Min.X):]
			s.y[i][8*j+k], s.cb[i][8*j+k], s.cr[i][8*j+k] = ycc(p[0], p[1], p[2])
		}
	}
}

// rgbAt is the red, green and blue of the pixel at pix[i:], as one number.
func rgbAt(pix []byte, i int) uint32 { return binary.LittleEndian.Uint32(pix[i:]) & 0xffffff }

// ycc is color.RGBToYCbCr (the same formulae and rounding), for the encoder's blocks.
func ycc(r, g, b uint8) (y, cb, cr int32) {
	r1, g1, b1 := int32(r), int32(g), int32(b)
	y = (19595*r1 + 38470*g1 + 7471*b1 + 1<<15) >> 16
	cb = min((-11056*r1-21712*g1+32768*b1+257<<15)>>16, 255) // never below 0
	cr = min((32768*r1-27440*g1-5328*b1+257<<15)>>16, 255)
	return y, cb, cr
}

// subsample averages the 16x16 samples of four blocks 2x2, into one block.
func subsample(dst *[64]int32, src *[4][64]int32) {
	for i := range 4 {
		off := (i&2)<<4 | (i&1)<<2
		for y := range 4 {
			for x := range 4 {
				j := 16*y + 2*x
				dst[8*y+x+off] = (src[i][j] + src[i][j+1] + src[i][j+8] + src[i][j+9] + 2) >> 2
			}
		}
	}
}
