//go:build vision

package worker

import (
	"context"
	"image"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"gocv.io/x/gocv"

	"github.com/corral-farm/corral/vision"
)

// How OCR prepares a screen for Tesseract. Phone screenshots are large, sharp and
// high-contrast, with text a few dozen pixels tall: they are read at ocrMaxWidth pixels wide,
// enough for 10 px text, and with page segmentation mode ocrPSM (sparse text: a screen is
// scattered labels, not a page of paragraphs, and mode 11 finds them without Tesseract's
// column analysis). Small images are enlarged, as Tesseract misses text under ~10 px tall. A
// dark screen (mean luminance under darkLuminance) is inverted, and so are dark panels on a
// light one (evenPanels): Tesseract reads dark text on light ground best. The lines this first
// pass misses or cuts up are read again one at a time (reread.go).
var (
	ocrMaxWidth    = 1080
	ocrMinSide     = 600
	ocrPSM         = 11
	ocrMinConf     = 30.0 // Tesseract's 0-100: below it a "word" is mostly an icon read as text
	ocrDictConf    = 10.0 // a dictionary word is kept down to this
	darkLuminance  = 100.0
	panelLevel     = float32(200)
	panelMinFrac   = 0.04 // of the width: a button's or a bar's shorter side is larger
	panelFill      = 0.6
	lineGapFactor  = 1.5 // a gap wider than this many line heights splits a Tesseract line
	cjkJoinNoSpace = true
	cjkJoinGap     = 0.8 // Chinese characters closer than this many heights are one word
	iconCover      = 0.7 // a word covering this much of a panel is the panel (an icon) read as text
	iconSquare     = 1.5 // a panel at most this long over wide is square, as icons are
	iconUnsure     = 50.0
)

// OCR reads the words and lines of an image.
func (e *Engine) OCR(ctx context.Context, req vision.OCRRequest) (vision.OCRResult, error) {
	if err := checkVersion(req.V); err != nil {
		return vision.OCRResult{}, err
	}
	langs, err := e.languages(req.Languages)
	if err != nil {
		return vision.OCRResult{}, err
	}
	gray, err := decode(req.Image, "image", gocv.IMReadGrayScale)
	if err != nil {
		return vision.OCRResult{}, err
	}
	defer gray.Close()
	done, err := e.acquire(ctx)
	if err != nil {
		return vision.OCRResult{}, err
	}
	defer done()
	lines, err := e.ocr(ctx, gray, langs)
	if err != nil {
		return vision.OCRResult{}, err
	}
	return vision.OCRResult{V: vision.WireVersion, Width: gray.Cols(), Height: gray.Rows(), Lines: lines}, nil
}

// ocr reads gray (one channel) with Tesseract for langs. The caller holds a slot.
func (e *Engine) ocr(ctx context.Context, gray gocv.Mat, langs string) ([]vision.Line, error) {
	w, h := gray.Cols(), gray.Rows()
	prep := gocv.NewMat()
	defer prep.Close()
	// Dark themes: Tesseract reads dark text on light ground best.
	if gray.Mean().Val1 < darkLuminance {
		gocv.BitwiseNot(gray, &prep)
	} else {
		gray.CopyTo(&prep)
	}
	scale := 1.0
	switch {
	case w > ocrMaxWidth:
		scale = float64(ocrMaxWidth) / float64(w)
	case max(w, h) < ocrMinSide:
		scale = min(3, float64(ocrMinSide)/float64(max(w, h)))
	}
	if scale != 1 {
		sw, sh := max(1, int(math.Round(float64(w)*scale))), max(1, int(math.Round(float64(h)*scale)))
		interp := gocv.InterpolationArea
		if scale > 1 {
			interp = gocv.InterpolationCubic
		}
		scaled := gocv.NewMat()
		defer scaled.Close()
		gocv.Resize(prep, &scaled, image.Pt(sw, sh), 0, 0, interp)
		prep, scaled = scaled, prep
	}
	panels := evenPanels(&prep)
	if !prep.IsContinuous() {
		c := prep.Clone()
		prep.Close()
		prep = c
	}
	pix, err := prep.DataPtrUint8()
	if err != nil {
		return nil, &vision.Error{Code: vision.CodeFailed, Message: "OCR: " + err.Error()}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t, err := e.tessFor(langs)
	if err != nil {
		return nil, err
	}
	// A word is kept when Tesseract is sure enough of it, or when it is a dictionary word of
	// three letters or more (an icon read as text rarely is): Tesseract's LSTM is unsure of
	// some plain words ("Display" in a monospaced font, 25 %).
	keep := func(tw tessWord) bool {
		text := strings.TrimSpace(tw.text)
		if text == "" || !hasLetterOrDigit(text) || onIcon(tw, panels) {
			return false
		}
		return tw.conf >= ocrMinConf || tw.conf >= ocrDictConf && utf8.RuneCountInString(text) >= 3 && t.validWord(text)
	}
	words, err := t.words(ctx, pix, prep.Cols(), prep.Rows(), ocrPSM)
	if err == nil {
		// The first pass's words, times whose colon made them two joined, then the second look
		// (reread.go) at the lines the first missed or cut up.
		words = slices.DeleteFunc(reread(ctx, t, prep, joinDigits(words), keep), func(tw tessWord) bool { return !keep(tw) })
		for i := range words {
			words[i].text = fixCase(t, strings.TrimSpace(words[i].text))
		}
		err = ctx.Err()
	}
	e.release(t)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &vision.Error{Code: vision.CodeFailed, Message: "OCR: " + err.Error()}
	}
	bounds := image.Rect(0, 0, w, h)
	byLine := map[int][]vision.Word{}
	var order []int
	for _, tw := range words {
		text := tw.text
		r := image.Rect(
			int(math.Floor(float64(tw.box.Min.X)/scale)), int(math.Floor(float64(tw.box.Min.Y)/scale)),
			int(math.Ceil(float64(tw.box.Max.X)/scale)), int(math.Ceil(float64(tw.box.Max.Y)/scale)),
		).Intersect(bounds)
		if r.Empty() {
			continue
		}
		if _, ok := byLine[tw.line]; !ok {
			order = append(order, tw.line)
		}
		byLine[tw.line] = append(byLine[tw.line], vision.Word{Text: text, Box: toBox(r), Confidence: min(1, max(0, tw.conf/100))})
	}
	var lines []vision.Line
	for _, n := range order {
		ws := byLine[n]
		slices.SortStableFunc(ws, func(a, b vision.Word) int { return a.Box.X - b.Box.X })
		lines = append(lines, splitLine(joinCJK(ws))...)
	}
	sortReading(lines, func(l vision.Line) vision.Box { return l.Box })
	return lines, nil
}

// evenPanels makes the solid panels of gray (a screen of dark text on light ground) read like
// the rest: buttons and bars, light text on a dark panel or dark text on a mid-gray one, which
// Tesseract's binarisation blackens, text and all. A panel is a connected region of pixels
// darker than panelLevel, at least panelMinFrac of the image's width in both directions,
// filling at least panelFill of its box (text glyphs, however bold, are smaller or sparser).
// A panel darker than the middle gray is inverted; each is stretched so its ground is white
// and its text black. It returns the panels' boxes.
//
// Every region counts, not only the outermost: a panel lies inside the hole of a region that
// is none (the dark surround of a camera frame, a text field's outline: QA's Paste button on
// the arm's camera was never seen). A panel inside a larger one is evened with it, not again.
func evenPanels(gray *gocv.Mat) []image.Rectangle {
	w := gray.Cols()
	minSide := max(8, int(panelMinFrac*float64(w)))
	dark := gocv.NewMat()
	defer dark.Close()
	gocv.Threshold(*gray, &dark, panelLevel, 255, gocv.ThresholdBinaryInv)
	labels, stats, centroids := gocv.NewMat(), gocv.NewMat(), gocv.NewMat()
	defer labels.Close()
	defer stats.Close()
	defer centroids.Close()
	n := gocv.ConnectedComponentsWithStats(dark, &labels, &stats, &centroids)
	var regions []image.Rectangle
	for i := 1; i < n; i++ { // 0 is the light ground
		x, y := int(stats.GetIntAt(i, 0)), int(stats.GetIntAt(i, 1))
		r := image.Rect(x, y, x+int(stats.GetIntAt(i, 2)), y+int(stats.GetIntAt(i, 3)))
		if r.Dx() >= minSide && r.Dy() >= minSide && r.Dx() != w {
			regions = append(regions, r)
		}
	}
	slices.SortStableFunc(regions, func(a, b image.Rectangle) int { return b.Dx()*b.Dy() - a.Dx()*a.Dy() })
	var panels []image.Rectangle
	for _, r := range regions {
		if slices.ContainsFunc(panels, func(p image.Rectangle) bool { return r.In(p) }) {
			continue
		}
		region := dark.Region(r)
		fill := float64(gocv.CountNonZero(region)) / float64(r.Dx()*r.Dy())
		region.Close()
		if fill < panelFill {
			continue
		}
		panel := gray.Region(r)
		if panel.Mean().Val1 < 128 {
			gocv.BitwiseNot(panel, &panel)
		}
		gocv.Normalize(panel, &panel, 0, 255, gocv.NormMinMax)
		panel.Close()
		panels = append(panels, r)
	}
	return panels
}

// onIcon says whether w is an icon read as text: a word that covers most of a panel (a button's
// text is well inside it), or an unsure word in a square panel (an icon's pattern; a key's letter
// is read surely).
func onIcon(w tessWord, panels []image.Rectangle) bool {
	area := func(r image.Rectangle) float64 { return float64(r.Dx() * r.Dy()) }
	for _, p := range panels {
		in := w.box.Intersect(p)
		if in.Empty() {
			continue
		}
		if area(in) >= iconCover*area(p) {
			return true
		}
		square := float64(max(p.Dx(), p.Dy())) <= iconSquare*float64(min(p.Dx(), p.Dy()))
		if square && w.box.In(p) && w.conf < iconUnsure {
			return true
		}
	}
	return false
}

// splitLine makes lines of a Tesseract line's words (sorted left to right), split where a gap
// is wider than lineGapFactor times the line's height: a label and a value at either end of a
// row are two things to tap.
func splitLine(ws []vision.Word) []vision.Line {
	var out []vision.Line
	start := 0
	for i := 1; i <= len(ws); i++ {
		if i < len(ws) {
			prev, cur := ws[i-1].Box, ws[i].Box
			height := max(prev.H, cur.H)
			if gap := cur.X - (prev.X + prev.W); float64(gap) <= lineGapFactor*float64(height) {
				continue
			}
		}
		out = append(out, makeLine(ws[start:i]))
		start = i
	}
	return out
}

// joinCJK makes one word of Chinese characters side by side (a line's words, sorted left to
// right): Tesseract reports each character of a Chinese label as a word, where a reader (and
// tap_ocr's text) sees one. Characters are side by side when the gap between them is under
// cjkJoinGap of their height.
func joinCJK(ws []vision.Word) []vision.Word {
	out := ws[:0:0]
	for _, w := range ws {
		if n := len(out); n > 0 {
			prev := &out[n-1]
			gap := w.Box.X - (prev.Box.X + prev.Box.W)
			if endsCJK(prev.Text) && startsCJK(w.Text) && float64(gap) < cjkJoinGap*float64(max(prev.Box.H, w.Box.H)) {
				prev.Text += w.Text
				prev.Box = toBox(prev.Box.Rect().Union(w.Box.Rect()))
				prev.Confidence = min(prev.Confidence, w.Confidence)
				continue
			}
		}
		out = append(out, w)
	}
	return out
}

func makeLine(ws []vision.Word) vision.Line {
	l := vision.Line{Words: slices.Clone(ws), Confidence: 1}
	var r image.Rectangle
	var b strings.Builder
	for i, w := range ws {
		r = r.Union(w.Box.Rect())
		l.Confidence = min(l.Confidence, w.Confidence)
		if i > 0 && !(cjkJoinNoSpace && endsCJK(ws[i-1].Text) && startsCJK(w.Text)) {
			b.WriteByte(' ')
		}
		b.WriteString(w.Text)
	}
	l.Text, l.Box = b.String(), toBox(r)
	return l
}

// fixCase mends a word Tesseract read with a capital L or I for a small l inside it ("DispLay",
// "CLock": Go Mono's l has a foot like an L), when the word as read is not in the dictionary
// and the mended one is. A word that is (a name, "Land" at the start of a sentence) is left.
func fixCase(t *tess, s string) string {
	if !strings.ContainsAny(s, "LI") || t.validWord(s) {
		return s
	}
	r := []rune(s)
	changed := false
	for i := 1; i+1 < len(r); i++ {
		if (r[i] == 'L' || r[i] == 'I') && unicode.IsLetter(r[i-1]) && unicode.IsLower(r[i+1]) {
			r[i], changed = 'l', true
		}
	}
	if changed && t.validWord(string(r)) {
		return string(r)
	}
	return s
}

func hasLetterOrDigit(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		(r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF) // CJK punctuation, full-width forms
}

func startsCJK(s string) bool { r, _ := utf8.DecodeRuneInString(s); return isCJK(r) }
func endsCJK(s string) bool   { r, _ := utf8.DecodeLastRuneInString(s); return isCJK(r) }

// sortReading orders items top to bottom, then left to right within a row: items whose
// vertical middles are within half the smaller height of the row's first item share its row.
func sortReading[T any](items []T, box func(T) vision.Box) {
	slices.SortStableFunc(items, func(a, b T) int {
		ba, bb := box(a), box(b)
		return (2*ba.Y + ba.H) - (2*bb.Y + bb.H)
	})
	for start := 0; start < len(items); {
		first := box(items[start])
		end := start + 1
		for end < len(items) {
			b := box(items[end])
			if math.Abs(float64((2*b.Y+b.H)-(2*first.Y+first.H)))/2 > float64(min(b.H, first.H))/2 {
				break
			}
			end++
		}
		slices.SortStableFunc(items[start:end], func(a, b T) int { return box(a).X - box(b).X })
		start = end
	}
}
