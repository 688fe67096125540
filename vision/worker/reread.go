//go:build vision

package worker

import (
	"context"
	"image"
	"slices"
	"strings"
	"unicode"

	"gocv.io/x/gocv"
)

// A second look at what the first pass (sparse text, the whole screen at once) got wrong.
// Sparse mode finds scattered labels well, but it thresholds the whole screen at one level and
// reads each blob of text without its neighbours:
//
//   - text of a low contrast (a link in the accent colour on a dark theme, a dim value) falls
//     under the screen's threshold and is not read at all;
//   - a line whose characters are spaced wide (a time "09:12" in a monospaced font) is cut into
//     pieces on different lines, and the colon between them is lost.
//
// So the screen's lines of ink are found with OpenCV (an adaptive threshold, characters joined
// by a horizontal dilation), and a line that the first pass left without a word, or cut into
// pieces from different Tesseract lines, is read again on its own as one line of text (page
// segmentation mode 7): Tesseract thresholds the crop by its own contrast and its LSTM sees the
// whole line. Only those lines are read again, a few dozen milliseconds each, at most
// rereadMax of them.
var (
	rereadPSM      = 7    // a single line of text
	rereadMax      = 24   // lines read again per screen, at most
	inkBlock       = 31   // the neighbourhood whose lightest pixel is the ground, pixels
	inkContrast    = 40.0 // ink is this much darker than the lightest of its neighbourhood
	inkJoinFrac    = 0.012
	inkMinHeight   = 8
	inkMaxHeight   = 2.0 // times the median height of the words read
	inkMaxDensity  = 0.6 // of a line's box: solid shapes (a battery, a bar) are more
	inkIconSide    = 1.3 // a squarish blob this many word heights tall is an icon
	uncoveredFrac  = 0.25
	rereadMargin   = 0.2 // of the line's height, around its crop
	digitJoinSpace = 0.6 // of the height: digits and a colon closer than this are one word ("09:12")
)

// inkLine is a line of ink: its box, and the share of the box that is ink.
type inkLine struct {
	box     image.Rectangle
	density float64
}

// inkLines finds the lines of ink of prep (dark text on light ground), at most a few hundred:
// blobs of pixels darker than their neighbourhood, joined left to right across the gaps between
// characters and words, between inkMinHeight and maxH pixels tall.
func inkLines(prep gocv.Mat, maxH int) []inkLine {
	// The ground around a pixel is the lightest of its neighbourhood; ink is darker than it by
	// inkContrast. Unlike an adaptive threshold (darker than the neighbourhood's mean), this
	// keeps solid shapes solid, so that an icon's cells are not taken for strokes of text.
	ground := gocv.NewMat()
	defer ground.Close()
	square := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(inkBlock, inkBlock))
	defer square.Close()
	gocv.Dilate(prep, &ground, square)
	ink := gocv.NewMat()
	defer ink.Close()
	gocv.Subtract(ground, prep, &ink)
	gocv.Threshold(ink, &ink, float32(inkContrast), 255, gocv.ThresholdBinary)
	joined := gocv.NewMat()
	defer joined.Close()
	kernel := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(max(3, int(inkJoinFrac*float64(prep.Cols()))), 1))
	defer kernel.Close()
	gocv.Dilate(ink, &joined, kernel)
	labels, stats, centroids := gocv.NewMat(), gocv.NewMat(), gocv.NewMat()
	defer labels.Close()
	defer stats.Close()
	defer centroids.Close()
	n := gocv.ConnectedComponentsWithStats(joined, &labels, &stats, &centroids)
	var out []inkLine
	for i := 1; i < n; i++ { // 0 is the ground
		x, y := int(stats.GetIntAt(i, 0)), int(stats.GetIntAt(i, 1))
		w, h := int(stats.GetIntAt(i, 2)), int(stats.GetIntAt(i, 3))
		if h < inkMinHeight || h > maxH {
			continue
		}
		r := image.Rect(x, y, x+w, y+h)
		region := ink.Region(r)
		density := float64(gocv.CountNonZero(region)) / float64(w*h)
		region.Close()
		out = append(out, inkLine{box: r, density: density})
	}
	return out
}

// reread reads again, one line at a time, the lines of ink of prep that the first pass's words
// (ws, in prep's pixels) missed or cut up, and returns the words with the second look's in place
// of the first's. ok says which words the first pass kept. Words read again are on lines of
// their own, numbered after ws's.
func reread(ctx context.Context, t *tess, prep gocv.Mat, ws []tessWord, ok func(tessWord) bool) []tessWord {
	var kept []tessWord
	line := 0
	for _, w := range ws {
		line = max(line, w.line)
		if ok(w) {
			kept = append(kept, w)
		}
	}
	medH := 30
	if len(kept) > 0 {
		hs := make([]int, len(kept))
		for i, w := range kept {
			hs[i] = w.box.Dy()
		}
		slices.Sort(hs)
		medH = hs[len(hs)/2]
	}
	// The lines to read again: those without a word kept, or with words of two Tesseract lines
	// or more; neighbours on a row are read together ("Add a note", a word a blob).
	type todo struct {
		box       image.Rectangle
		uncovered bool
	}
	var rows []todo
	for _, l := range inkLines(prep, int(inkMaxHeight*float64(medH))) {
		b := l.box
		if l.density > inkMaxDensity {
			continue
		}
		if square := b.Dx()*10 >= 7*b.Dy() && b.Dx()*10 <= 14*b.Dy(); square && float64(b.Dy()) >= inkIconSide*float64(medH) {
			continue
		}
		covered, lines := 0, map[int]bool{}
		for _, w := range kept {
			if in := w.box.Intersect(b); !in.Empty() {
				covered += in.Dx() * in.Dy()
				lines[w.line] = true
			}
		}
		uncovered := float64(covered) < uncoveredFrac*float64(b.Dx()*b.Dy())
		if !uncovered && len(lines) < 2 {
			continue
		}
		rows = append(rows, todo{b, uncovered})
	}
	slices.SortFunc(rows, func(a, b todo) int {
		if a.box.Min.Y != b.box.Min.Y {
			return a.box.Min.Y - b.box.Min.Y
		}
		return a.box.Min.X - b.box.Min.X
	})
	var merged []todo
	for _, r := range rows {
		joined := false
		for i := range merged {
			m := &merged[i]
			if m.uncovered == r.uncovered && sameRow(m.box, r.box) {
				m.box = m.box.Union(r.box)
				joined = true
				break
			}
		}
		if !joined {
			merged = append(merged, r)
		}
	}
	bounds := image.Rect(0, 0, prep.Cols(), prep.Rows())
	for i, r := range merged {
		if i == rereadMax || ctx.Err() != nil {
			break
		}
		b := r.box
		m := max(3, int(rereadMargin*float64(b.Dy())))
		crop := b.Inset(-m).Intersect(bounds)
		again, err := readCrop(ctx, t, prep, crop)
		if err != nil {
			continue
		}
		line++
		var good []tessWord
		for _, w := range joinDigits(again) {
			w.box, w.line = w.box.Add(crop.Min), line
			if ok(w) {
				good = append(good, w)
			}
		}
		if len(good) == 0 {
			continue
		}
		if !r.uncovered {
			// The line read whole replaces its pieces.
			ws = slices.DeleteFunc(ws, func(w tessWord) bool { return centre(w.box).In(b) })
		}
		ws = append(ws, good...)
	}
	return ws
}

// sameRow says whether b continues the row a: their heights overlap by half the smaller, and
// the gap between them is under lineGapFactor of the taller.
func sameRow(a, b image.Rectangle) bool {
	overlap := min(a.Max.Y, b.Max.Y) - max(a.Min.Y, b.Min.Y)
	if 2*overlap < min(a.Dy(), b.Dy()) {
		return false
	}
	gap := max(b.Min.X-a.Max.X, a.Min.X-b.Max.X)
	return float64(gap) <= lineGapFactor*float64(max(a.Dy(), b.Dy()))
}

// readCrop reads r of prep as one line of text; the boxes are in r's pixels.
func readCrop(ctx context.Context, t *tess, prep gocv.Mat, r image.Rectangle) ([]tessWord, error) {
	region := prep.Region(r)
	c := region.Clone() // continuous, for Tesseract
	region.Close()
	defer c.Close()
	pix, err := c.DataPtrUint8()
	if err != nil {
		return nil, err
	}
	return t.words(ctx, pix, c.Cols(), c.Rows(), rereadPSM)
}

func centre(r image.Rectangle) image.Point {
	return image.Pt((r.Min.X+r.Max.X)/2, (r.Min.Y+r.Max.Y)/2)
}

// joinDigits joins the words of a line that are digits and a colon split apart ("09" ":12",
// "11:" "05", "09" ":" "12"), as a monospaced font's wide colon makes Tesseract see a space: a
// time or a ratio is one word. A word ending in a colon followed by a word ("Note:" "this") is
// not joined.
func joinDigits(ws []tessWord) []tessWord {
	out := ws[:0:0]
	for _, w := range ws {
		if n := len(out); n > 0 {
			prev := &out[n-1]
			gap := w.box.Min.X - prev.box.Max.X
			near := prev.line == w.line && float64(gap) < digitJoinSpace*float64(max(prev.box.Dy(), w.box.Dy()))
			if near && digitColon(prev.text, w.text) {
				prev.text += w.text
				prev.box = prev.box.Union(w.box)
				prev.conf = min(prev.conf, w.conf)
				continue
			}
		}
		out = append(out, w)
	}
	return out
}

// digitColon says whether a and b, side by side, are pieces of a time or a ratio: digits and a
// colon between them, the colon at the end of a or at the start of b (or alone).
func digitColon(a, b string) bool {
	digits := func(s string) bool {
		return s != "" && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsDigit(r) && r != ':' }) < 0
	}
	if !digits(a) || !digits(b) {
		return false
	}
	aColon, bColon := strings.HasSuffix(a, ":"), strings.HasPrefix(b, ":")
	if aColon == bColon { // neither ("12" "30": two numbers) or both ("12:" ":30")
		return false
	}
	first, last := strings.TrimSuffix(a, ":"), strings.TrimPrefix(b, ":")
	return (first == "" || strings.IndexFunc(first, unicode.IsDigit) >= 0) && (last == "" || strings.IndexFunc(last, unicode.IsDigit) >= 0) &&
		!(first == "" && last == "")
}
