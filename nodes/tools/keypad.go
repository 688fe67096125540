package tools

import (
	"image"
	"math"
	"slices"
	"strings"
	"unicode"
)

// padLayout is a lock screen's PIN pad as Android and iOS lay it out: three columns, four rows,
// the zero in the middle of the last row (-1: a key that is not a digit, or none).
var padLayout = [4][3]int{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {-1, 0, -1}}

// keypad is a PIN pad found on a screenshot: the centre of its top-left key and the distances
// between columns and rows, in pixels.
type keypad struct {
	x0, y0, dx, dy float64
}

// key is the centre of the key at row r, column c.
func (k keypad) key(r, c int) image.Point {
	return image.Pt(int(math.Round(k.x0+float64(c)*k.dx)), int(math.Round(k.y0+float64(r)*k.dy)))
}

// digit is the centre of digit d's key.
func (k keypad) digit(d int) image.Point {
	for r, row := range padLayout {
		if c := slices.Index(row[:], d); c >= 0 {
			return k.key(r, c)
		}
	}
	panic("keypad: not a digit")
}

// padMark is something a vision worker saw that may be a key: a round or square shape (digit
// -1) or a digit it read.
type padMark struct {
	x, y  float64
	digit int
}

// findKeypad finds a PIN pad among the elements a vision worker listed on a screenshot of size.
// Through a camera OCR reads some digits and misses others, but every key's disc shows as a
// shape: the pad is the lattice of three evenly spaced columns and at least three evenly spaced
// rows that the most shapes and digits fall on, where no digit read contradicts the layout and
// one agrees with it (or a shape sits on every digit's key).
func findKeypad(els []PeekElement, size image.Point) (keypad, bool) {
	marks := padMarks(els)
	if len(marks) < 3 || size.X <= 0 || size.Y <= 0 {
		return keypad{}, false
	}
	w, h := float64(size.X), float64(size.Y)
	tolX, tolY := 0.02*w, 0.012*h
	var xs, ys []float64
	for _, m := range marks {
		xs, ys = append(xs, m.x), append(ys, m.y)
	}
	cols, rows := clusters(xs, tolX), clusters(ys, tolY)
	var best keypad
	bestScore := 0
	for i, x0 := range cols {
		for _, x1 := range cols[i+1:] {
			dx := x1 - x0
			if dx < 0.12*w || x0+2*dx > w || !near(cols, x0+2*dx, tolX) {
				continue
			}
			for j, y0 := range rows {
				for _, y1 := range rows[j+1:] {
					dy := y1 - y0
					if dy < 0.04*h || dy > 0.2*h || y0+3*dy > h+tolY || !near(rows, y0+2*dy, tolY) {
						continue
					}
					k := keypad{x0: x0, y0: y0, dx: dx, dy: dy}
					if s := k.score(marks); s > bestScore {
						best, bestScore = k, s
					}
				}
			}
		}
	}
	return best, bestScore > 0
}

// score rates how well k fits the marks: 0 when it does not (a digit read where the layout has
// another; or, short of a mark on every digit's key, none read in place, or fewer than 6 keys
// seen of which fewer than 3 read), more the more keys are seen and digits agree.
func (k keypad) score(marks []padMark) int {
	var seen [4][3]bool
	agree := 0
	for _, m := range marks {
		c, r := math.Round((m.x-k.x0)/k.dx), math.Round((m.y-k.y0)/k.dy)
		if c < 0 || c > 2 || r < 0 || r > 3 ||
			math.Abs(m.x-k.x0-c*k.dx) > k.dx/4 || math.Abs(m.y-k.y0-r*k.dy) > k.dy/4 {
			continue
		}
		seen[int(r)][int(c)] = true
		switch m.digit {
		case -1:
		case padLayout[int(r)][int(c)]:
			agree++
		default:
			return 0
		}
	}
	keys := 0
	for r, row := range padLayout {
		for c, d := range row {
			if d >= 0 && seen[r][c] {
				keys++
			}
		}
	}
	if keys < 10 && (agree == 0 || keys < 6 && agree < 3) {
		return 0
	}
	return 2*keys + 3*agree
}

// padMarks are the elements that may be keys: shapes about as wide as tall, and single digits
// read (with the letters under them on a phone's keys: "2 ABC").
func padMarks(els []PeekElement) []padMark {
	var out []padMark
	for _, e := range els {
		r := e.px
		if r.Empty() {
			continue
		}
		m := padMark{x: float64(r.Min.X+r.Max.X) / 2, y: float64(r.Min.Y+r.Max.Y) / 2, digit: -1}
		switch ratio := float64(r.Dx()) / float64(r.Dy()); {
		case e.Kind == "icon" && ratio >= 0.5 && ratio <= 2:
		case padDigit(e.Label) >= 0:
			m.digit = padDigit(e.Label)
		default:
			continue
		}
		out = append(out, m)
	}
	return out
}

// padDigit is the digit a key's label shows ("7", "7 PQRS"), -1 if it shows none.
func padDigit(label string) int {
	f := strings.Fields(label)
	if len(f) == 0 || len(f) > 2 || len(f[0]) != 1 || f[0][0] < '0' || f[0][0] > '9' {
		return -1
	}
	if len(f) == 2 && strings.IndexFunc(f[1], func(r rune) bool { return !unicode.IsUpper(r) && r != '+' }) >= 0 {
		return -1
	}
	return int(f[0][0] - '0')
}

// clusters groups sorted copies of vs into runs whose neighbours lie within tol and returns
// each run's mean.
func clusters(vs []float64, tol float64) []float64 {
	vs = slices.Sorted(slices.Values(vs))
	var out []float64
	sum, n := 0.0, 0
	for i, v := range vs {
		if i > 0 && v-vs[i-1] > tol {
			out = append(out, sum/float64(n))
			sum, n = 0, 0
		}
		sum, n = sum+v, n+1
	}
	if n > 0 {
		out = append(out, sum/float64(n))
	}
	return out
}

// near says whether one of vs lies within tol of v.
func near(vs []float64, v, tol float64) bool {
	return slices.ContainsFunc(vs, func(u float64) bool { return math.Abs(u-v) <= tol })
}
