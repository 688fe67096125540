package tools

import "math/bits"

// block writes one block of component c (0 Y, 1 Cb, 2 Cr).
func (s *scan) block(c int, b *[64]int32) {
	flat := true
	for _, v := range b[1:] {
		if v != b[0] {
			flat = false
			break
		}
	}
	if flat {
		s.flat(c, b[0])
		return
	}
	f := &s.coefficient
	for i, v := range b {
		f[i] = float32(v - 128)
	}
	fdct(f)
	q, h := &s.t.quant[min(c, 1)], s.t.huff[2*min(c, 1)+1]
	s.dc(c, quantize(f[0]*q[0]))
	run := int32(0)
	for _, n := range unzig[1:] {
		ac := quantize(f[n] * q[n])
		if ac == 0 {
			run++
			continue
		}
		for ; run > 15; run -= 16 {
			s.huff(h, 0xf0) // sixteen zeros
		}
		s.huffValue(h, run, ac)
		run = 0
	}
	if run > 0 {
		s.huff(h, 0x00) // end of block
	}
}

// flat writes a block of component c whose samples are all v: its transform is the DC alone.
func (s *scan) flat(c int, v int32) {
	s.dc(c, quantize(float32(64*(v-128))*s.t.quant[min(c, 1)][0]))
	s.huff(s.t.huff[2*min(c, 1)+1], 0x00)
}

func (s *scan) dc(c int, dc int32) {
	s.huffValue(s.t.huff[2*min(c, 1)], 0, dc-s.prev[c])
	s.prev[c] = dc
}

// quantize rounds to the nearest integer (halves up: truncating a positive number is
// flooring it), within what baseline JPEG can code.
func quantize(x float32) int32 {
	return max(-1023, min(int32(x+1024.5)-1024, 1023))
}

// huffValue writes a run of zeros and a value: the code of their pair, then the value's bits.
func (s *scan) huffValue(h []uint32, run, v int32) {
	a, b := v, v
	if v < 0 {
		a, b = -v, v-1
	}
	n := uint32(bits.Len32(uint32(a)))
	s.huff(h, run<<4|int32(n))
	if n > 0 {
		s.emit(uint32(b)&(1<<n-1), n)
	}
}

func (s *scan) huff(h []uint32, v int32) {
	x := h[v]
	s.emit(x&(1<<24-1), x>>24)
}

// emit writes the low n bits of b (n ≤ 16), a 0 after every 0xff byte.
func (s *scan) emit(b, n uint32) {
	n += s.nBits
	b = b<<(32-n) | s.acc
	for ; n >= 8; n -= 8 {
		c := byte(b >> 24)
		s.out = append(s.out, c)
		if c == 0xff {
			s.out = append(s.out, 0)
		}
		b <<= 8
	}
	s.acc, s.nBits = b, n
}
