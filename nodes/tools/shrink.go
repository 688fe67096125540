package tools

import "image"

// shrinker scales a frame down by area: each output pixel is the mean of the source pixels
// under it (whole ones: output column i covers source columns i*W/w up to (i+1)*W/w, rows
// likewise). Each output row needs only the source rows under it, so rows can be made while
// the frame is still arriving; at exactly half the size it averages 2x2 as halve does.
type shrinker struct {
	src, dst *image.RGBA
	xs       []int // source column where each output column starts, then the width
}

// newShrinker returns a shrinker of src to w×h pixels (no larger than src), into a new image.
func newShrinker(src *image.RGBA, w, h int) *shrinker {
	sw := src.Rect.Dx()
	xs := make([]int, w+1)
	for i := range xs {
		xs[i] = i * sw / w
	}
	return &shrinker{src: src, dst: image.NewRGBA(image.Rect(0, 0, w, h)), xs: xs}
}

// srcRow is the first source row under output row j (the height for j = the output height).
func (s *shrinker) srcRow(j int) int { return j * s.src.Rect.Dy() / s.dst.Rect.Dy() }

// ready is how many output rows can be made from the first n source rows.
func (s *shrinker) ready(n int) int {
	return min(s.dst.Rect.Dy(), n*s.dst.Rect.Dy()/s.src.Rect.Dy())
}

// rows makes output rows y0 to y1-1.
func (s *shrinker) rows(y0, y1 int) {
	sw, sh, w, h := s.src.Rect.Dx(), s.src.Rect.Dy(), s.dst.Rect.Dx(), s.dst.Rect.Dy()
	if sw == 2*w && sh == 2*h {
		boxRows(s.dst, s.src, y0, y1) // the common case, and halve's own loop
		return
	}
	col := make([]uint32, 4*sw)           // the source rows under one output row, summed
	recip := make([]uint64, (sw+w-1)/w+1) // by span width: sum/n is sum*recip>>40, exactly for sums under 1<<24
	for j := y0; j < y1; j++ {
		clear(col)
		sy0, sy1 := s.srcRow(j), s.srcRow(j+1)
		for sy := sy0; sy < sy1; sy++ {
			off := s.src.PixOffset(s.src.Rect.Min.X, s.src.Rect.Min.Y+sy)
			for k, v := range s.src.Pix[off : off+4*sw] {
				col[k] += uint32(v)
			}
		}
		for k := 1; k < len(recip); k++ {
			n := uint64(k * (sy1 - sy0))
			recip[k] = (1<<40 + n - 1) / n
		}
		out := s.dst.Pix[j*s.dst.Stride : j*s.dst.Stride+4*w]
		for i := range w {
			x0, x1 := s.xs[i], s.xs[i+1]
			var sum [4]uint64
			for x := 4 * x0; x < 4*x1; x += 4 {
				c := col[x : x+4 : x+4]
				sum[0], sum[1], sum[2], sum[3] = sum[0]+uint64(c[0]), sum[1]+uint64(c[1]), sum[2]+uint64(c[2]), sum[3]+uint64(c[3])
			}
			n, m := uint64((x1-x0)*(sy1-sy0)), recip[x1-x0]
			o := out[4*i : 4*i+4 : 4*i+4]
			o[0], o[1], o[2], o[3] = uint8((sum[0]+n/2)*m>>40), uint8((sum[1]+n/2)*m>>40), uint8((sum[2]+n/2)*m>>40), uint8((sum[3]+n/2)*m>>40)
		}
	}
}
