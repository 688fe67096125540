package tools

import "math"

// fdct transforms an 8x8 block of samples (already centred on 0) in place, rows then columns,
// with the float AAN algorithm (Arai, Agui and Nakajima; libjpeg's jfdctflt): 5 products per
// 8 points. Coefficient (u, v) comes out scaled by 8·aan[u]·aan[v], which quantizers folds into
// the divisors.
func fdct(b *[64]float32) {
	for i := 0; i < 64; i += 8 {
		fdct8(b[i:i+8:i+8], 1)
	}
	for i := range 8 {
		fdct8(b[i:], 8)
	}
}

// fdct8 is the 8-point AAN transform of d[0], d[s], … d[7s].
func fdct8(d []float32, s int) {
	_ = d[7*s]
	t0, t7 := d[0]+d[7*s], d[0]-d[7*s]
	t1, t6 := d[s]+d[6*s], d[s]-d[6*s]
	t2, t5 := d[2*s]+d[5*s], d[2*s]-d[5*s]
	t3, t4 := d[3*s]+d[4*s], d[3*s]-d[4*s]

	// Even part.
	t10, t13 := t0+t3, t0-t3
	t11, t12 := t1+t2, t1-t2
	d[0], d[4*s] = t10+t11, t10-t11
	z1 := (t12 + t13) * 0.707106781
	d[2*s], d[6*s] = t13+z1, t13-z1

	// Odd part.
	t10, t11, t12 = t4+t5, t5+t6, t6+t7
	z5 := (t10 - t12) * 0.382683433
	z2 := 0.541196100*t10 + z5
	z4 := 1.306562965*t12 + z5
	z3 := t11 * 0.707106781
	z11, z13 := t7+z3, t7-z3
	d[5*s], d[3*s] = z13+z2, z13-z2
	d[s], d[7*s] = z11+z4, z11-z4
}

// quantizers returns, in natural order, what multiplies fdct's coefficients to quantize them
// by table (in zig-zag order, as a DQT segment holds it).
func quantizers(table *[64]uint8) (q [64]float32) {
	aan := [8]float64{1}
	for k := 1; k < 8; k++ {
		aan[k] = math.Cos(float64(k)*math.Pi/16) * math.Sqrt2
	}
	for zig, n := range unzig {
		q[n] = float32(1 / (float64(table[zig]) * aan[n/8] * aan[n%8] * 8))
	}
	return q
}

// unzig maps zig-zag order to natural order.
var unzig = [64]int{
	0, 1, 8, 16, 9, 2, 3, 10,
	17, 24, 32, 25, 18, 11, 4, 5,
	12, 19, 26, 33, 40, 48, 41, 34,
	27, 20, 13, 6, 7, 14, 21, 28,
	35, 42, 49, 56, 57, 50, 43, 36,
	29, 22, 15, 23, 30, 37, 44, 51,
	58, 59, 52, 45, 38, 31, 39, 46,
	53, 60, 61, 54, 47, 55, 62, 63,
}
