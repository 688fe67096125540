package corpus

import (
	"cmp"
	"image"
	"slices"
	"strings"

	"github.com/corral-farm/corral/vision"
)

// MinIoU is how much a word read must overlap a word drawn to be it (with the same text).
const MinIoU = 0.5

// Score is how well an OCR read a screen's words: a word drawn is found when a word read has its
// text and a box overlapping its box by at least MinIoU; each word read finds at most one.
type Score struct {
	Truth, Got, Matched int     // words drawn, words read, pairs
	SumIoU              float64 // of the pairs
	Recall              float64 // Matched / Truth
	Precision           float64 // Matched / Got
	MeanIoU             float64 // SumIoU / Matched
	Missed              []string
}

// Add is s and o together, as one screen: the ratios over the counts of both.
func (s Score) Add(o Score) Score {
	s.Truth += o.Truth
	s.Got += o.Got
	s.Matched += o.Matched
	s.SumIoU += o.SumIoU
	s.Missed = append(slices.Clip(s.Missed), o.Missed...)
	return s.ratios()
}

func (s Score) ratios() Score {
	s.Recall, s.Precision, s.MeanIoU = ratio(s.Matched, s.Truth), ratio(s.Matched, s.Got), 0
	if s.Matched > 0 {
		s.MeanIoU = s.SumIoU / float64(s.Matched)
	}
	return s
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// ScoreOCR scores the words got (read by an OCR) against the truth (drawn). Pairs are made best
// overlap first. Texts compare exactly, but for spaces inside Chinese (an OCR may split a
// label into characters).
func ScoreOCR(truth, got []Word) Score {
	type pair struct {
		t, g int
		iou  float64
	}
	var pairs []pair
	for i, t := range truth {
		for j, g := range got {
			if sameText(t.Text, g.Text) {
				if v := IoU(t.Box, g.Box); v >= MinIoU {
					pairs = append(pairs, pair{i, j, v})
				}
			}
		}
	}
	slices.SortStableFunc(pairs, func(a, b pair) int { return cmp.Compare(b.iou, a.iou) })
	tUsed, gUsed := make([]bool, len(truth)), make([]bool, len(got))
	s := Score{Truth: len(truth), Got: len(got)}
	for _, p := range pairs {
		if tUsed[p.t] || gUsed[p.g] {
			continue
		}
		tUsed[p.t], gUsed[p.g] = true, true
		s.Matched++
		s.SumIoU += p.iou
	}
	for i, t := range truth {
		if !tUsed[i] {
			s.Missed = append(s.Missed, t.Text)
		}
	}
	return s.ratios()
}

func sameText(a, b string) bool {
	if a == b {
		return true
	}
	if hasCJK(a) {
		return strings.Join(strings.Fields(a), "") == strings.Join(strings.Fields(b), "")
	}
	return false
}

// WordsOf are the words of an OCR's result, in its lines' order.
func WordsOf(res vision.OCRResult) []Word {
	var out []Word
	for _, l := range res.Lines {
		for _, w := range l.Words {
			out = append(out, Word{Text: w.Text, Box: w.Box.Rect()})
		}
	}
	return out
}

// TapText is where tap_ocr taps text on a screen an OCR read as res, by the tools' rule: the
// lines read (words joined by a space) that hold text, those that are all of it first, in
// reading order; the first's words that the text spans; the middle of their box. False when
// no line holds it.
func TapText(res vision.OCRResult, text string) (image.Point, bool) {
	type hit struct {
		box   image.Rectangle
		exact bool
	}
	var hits []hit
	for _, l := range res.Lines {
		var sb strings.Builder
		starts := make([]int, len(l.Words))
		for i, w := range l.Words {
			if i > 0 {
				sb.WriteByte(' ')
			}
			starts[i] = sb.Len()
			sb.WriteString(w.Text)
		}
		line := sb.String()
		s := strings.Index(line, text)
		if s < 0 || text == "" {
			continue
		}
		e := s + len(text)
		var box image.Rectangle
		first, last := -1, -1
		for i, w := range l.Words {
			if ws, we := starts[i], starts[i]+len(w.Text); we > s && ws < e {
				if first < 0 {
					first = i
				}
				last = i
				box = box.Union(w.Box.Rect())
			}
		}
		if first >= 0 {
			hits = append(hits, hit{box, s == starts[first] && e == starts[last]+len(l.Words[last].Text)})
		}
	}
	if len(hits) == 0 {
		return image.Point{}, false
	}
	best := -1
	for i, h := range hits {
		if best < 0 || h.exact && !hits[best].exact || h.exact == hits[best].exact && above(h.box, hits[best].box) {
			best = i
		}
	}
	b := hits[best].box
	return image.Pt((b.Min.X+b.Max.X)/2, (b.Min.Y+b.Max.Y)/2), true
}

// above says whether a comes before b in reading order (top to bottom, then left to right
// within a band).
func above(a, b image.Rectangle) bool {
	ac, bc := (a.Min.Y+a.Max.Y)/2, (b.Min.Y+b.Max.Y)/2
	if ac >= b.Min.Y && ac < b.Max.Y || bc >= a.Min.Y && bc < a.Max.Y {
		return a.Min.X < b.Min.X
	}
	return ac < bc
}
