package tools

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"image"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/uitree"
	"github.com/corral-farm/corral/vision"
)

// Where a text was found.
const (
	SourceUITree = "ui_tree"
	SourceOCR    = "ocr"
)

// textQuery is a text to find on screen: the text itself, or a regular expression (RE2: Go's
// regexp, which never backtracks).
type textQuery struct {
	text string
	re   *regexp.Regexp
}

// newTextQuery makes the query for text; a regex that does not compile is bad_input.
func newTextQuery(text string, regex bool) (textQuery, error) {
	q := textQuery{text: strings.Join(strings.Fields(text), " ")}
	if regex {
		re, err := regexp.Compile(text)
		if err != nil {
			return q, BadInput("regex %s does not compile (Go's RE2 syntax: no backreferences or lookaround): %v", strconv.Quote(clip(text)), err)
		}
		q.re, q.text = re, text
	}
	return q, nil
}

func (q textQuery) String() string {
	if q.re != nil {
		return "/" + q.text + "/"
	}
	return strconv.Quote(q.text)
}

// find returns where q matches s, a byte range; exact when it is all of s (for a regex:
// matches all of it).
func (q textQuery) find(s string) (start, end int, exact, ok bool) {
	if q.re != nil {
		loc := q.re.FindStringIndex(s)
		if loc == nil {
			return 0, 0, false, false
		}
		return loc[0], loc[1], loc[0] == 0 && loc[1] == len(s), true
	}
	if q.text == "" {
		return 0, 0, false, false
	}
	i := strings.Index(s, q.text)
	if i < 0 {
		return 0, 0, false, false
	}
	return i, i + len(q.text), len(q.text) == len(s), true
}

// textHit is a place a text shows on screen.
type textHit struct {
	Text  string          // what the screen shows there
	Box   image.Rectangle // pixels of the screen
	Conf  float64         // 1 from a UI tree; the OCR's confidence otherwise
	Exact bool            // the whole element, or whole words of an OCR line, match
	Whole bool            // the whole element, or the whole OCR line, match
}

// pickFrom returns the index-th hit (negative: from the end), the best kind first: a text that
// is all of an element or OCR line beats whole words of a longer line ("Save" is not the "Save"
// of "Save as"), which beat a part of a word ("Item 1" is not "Item 12"). Hits are in reading
// order. It also says how many hits it picked from.
func pickFrom(hits []textHit, index int) (textHit, int, bool) {
	for _, better := range []func(textHit) bool{func(h textHit) bool { return h.Whole }, func(h textHit) bool { return h.Exact }} {
		if kept := slices.DeleteFunc(slices.Clone(hits), func(h textHit) bool { return !better(h) }); len(kept) > 0 {
			hits = kept
			break
		}
	}
	if index < 0 {
		index += len(hits)
	}
	if index < 0 || index >= len(hits) {
		return textHit{}, len(hits), false
	}
	return hits[index], len(hits), true
}

// treeHits finds q in what the elements visible on screen say: their text or their
// content-desc, either (a button reading "Clear" is found as its description "Clear note" too);
// a whole match of one beats a part of the other. An element that holds a smaller match with
// the same label (a list row described by its own title) gives way to it: the hit is where the
// text is drawn.
func treeHits(q textQuery, els []uitree.Element, screen image.Rectangle) []textHit {
	var hits []textHit
	for _, e := range els {
		box := e.Bounds.Intersect(screen)
		if box.Empty() {
			continue
		}
		var hit textHit
		for _, label := range e.Labels() {
			if _, _, exact, ok := q.find(label); ok && (hit.Text == "" || exact && !hit.Exact) {
				hit = textHit{Text: label, Box: box, Conf: 1, Exact: exact, Whole: exact}
			}
		}
		if hit.Text != "" {
			hits = append(hits, hit)
		}
	}
	out := hits[:0:0]
	for i, h := range hits {
		inner := slices.ContainsFunc(hits, func(o textHit) bool {
			return o.Text == h.Text && o.Box != h.Box && o.Box.In(h.Box)
		})
		twin := slices.ContainsFunc(hits[:i], func(o textHit) bool { return o.Text == h.Text && o.Box == h.Box })
		if !inner && !twin {
			out = append(out, h)
		}
	}
	sortReading(out)
	return out
}

// ocrHits finds q in the lines an OCR read, narrowed to the words the match spans.
func ocrHits(q textQuery, res vision.OCRResult, vi visionImage) []textHit {
	var hits []textHit
	for _, l := range res.Lines {
		if len(l.Words) == 0 {
			if s, e, exact, ok := q.find(l.Text); ok {
				hits = append(hits, textHit{Text: l.Text[s:e], Box: vi.toScreen(l.Box), Conf: l.Confidence, Exact: exact, Whole: exact})
			}
			continue
		}
		// The line as its words joined by one space, so that a byte range maps to words.
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
		s, e, _, ok := q.find(line)
		if !ok {
			continue
		}
		var box image.Rectangle
		conf := 1.0
		first, last := -1, -1
		for i, w := range l.Words {
			ws, we := starts[i], starts[i]+len(w.Text)
			if we <= s || ws >= e {
				continue
			}
			if first < 0 {
				first = i
			}
			last = i
			box = box.Union(vi.toScreen(w.Box))
			conf = min(conf, w.Confidence)
		}
		if first < 0 {
			continue
		}
		exact := s == starts[first] && e == starts[last]+len(l.Words[last].Text)
		hits = append(hits, textHit{Text: line[s:e], Box: box, Conf: conf, Exact: exact, Whole: s == 0 && e == len(line)})
	}
	sortReading(hits)
	return hits
}

// sortReading orders hits top to bottom, then left to right (a row's boxes share a band).
func sortReading(hits []textHit) {
	slices.SortStableFunc(hits, func(a, b textHit) int {
		ac, bc := (a.Box.Min.Y+a.Box.Max.Y)/2, (b.Box.Min.Y+b.Box.Max.Y)/2
		if ac >= b.Box.Min.Y && ac < b.Box.Max.Y || bc >= a.Box.Min.Y && bc < a.Box.Max.Y {
			return cmp.Compare(a.Box.Min.X, b.Box.Min.X)
		}
		return cmp.Compare(ac, bc)
	})
}

// screenLook is one look at the screen for texts: what was found, where, and what the screen
// was (for telling whether a swipe moved it).
type screenLook struct {
	hit    textHit
	query  int // index of the query found
	found  bool
	source string
	// matches counts the matches of a query found only at other indexes than the one asked.
	matches int
	size    image.Point
	// treeUsable says the UI tree was read and lists text: without a worker, the tools still
	// search it (a text it lacks is then reported not found, with how to add OCR).
	treeUsable bool
	treeNote   string // why the tree was not used, for messages
	ocrErr     error  // why OCR could not look (vision.ErrNoWorker: no worker)
	frame      uint64 // a hash of what the screen showed

	otherCase otherCase // a query not found that shows in another case (text_other_case.go)
}

// lookFor looks for the queries on screen, in order, the first found wins: in the UI tree where
// the driver has one that holds the text, else by OCR of a screenshot. noOCR, when set, is why
// OCR could not look before in this call (no worker): it is not asked again.
func lookFor(ctx context.Context, t *Task, qs []textQuery, index int, noOCR error) (screenLook, error) {
	var look screenLook
	if sd, ok := t.Driver.(device.SourceDumper); ok {
		size, err := t.Driver.ScreenSize(ctx)
		if err != nil {
			return look, err
		}
		look.size = image.Pt(size.Width, size.Height)
		screen := image.Rectangle{Max: look.size}
		src, err := sd.Source(ctx)
		var els []uitree.Element
		if err == nil {
			els, err = uitree.Parse(src)
		}
		switch {
		case ctx.Err() != nil:
			return look, ctx.Err()
		case err != nil:
			look.treeNote = fmt.Sprintf("the UI tree could not be read (%v)", err)
		default:
			h := fnv.New64a()
			h.Write([]byte(src))
			look.frame = h.Sum64()
			look.treeUsable = slices.ContainsFunc(els, func(e uitree.Element) bool {
				return e.Label() != "" && !e.Bounds.Intersect(screen).Empty()
			})
			if !look.treeUsable {
				look.treeNote = "the UI tree lists no text (a blank page, or a canvas, game or camera view)"
			}
			for i, q := range qs {
				hit, n, ok := pickFrom(treeHits(q, els, screen), index)
				if ok {
					look.hit, look.query, look.found, look.source = hit, i, true, SourceUITree
					return look, nil
				}
				look.matches = max(look.matches, n)
			}
			look.otherCase, _ = firstOtherCase(qs, func(q textQuery) []textHit { return treeHits(q, els, screen) })
		}
	} else {
		look.treeNote = "this device has no UI tree"
	}
	if noOCR != nil {
		look.ocrErr = noOCR
		return look, nil
	}
	img, err := t.Driver.Screenshot(ctx)
	if err != nil {
		return look, err
	}
	look.size = img.Bounds().Size()
	res, vi, err := askVision(ctx, t, img, 0, func(vi visionImage) (vision.OCRResult, error) {
		return t.vision().OCR(ctx, vision.OCRRequest{V: vision.WireVersion, Image: vi.data})
	})
	if err != nil {
		if noWorker(err) {
			look.ocrErr = err
			return look, nil
		}
		return look, err
	}
	if !look.treeUsable || look.frame == 0 {
		h := fnv.New64a()
		h.Write(vi.data)
		look.frame = h.Sum64()
	}
	look.source = SourceOCR
	for i, q := range qs {
		hit, n, ok := pickFrom(ocrHits(q, res, vi), index)
		if ok {
			look.hit, look.query, look.found = hit, i, true
			return look, nil
		}
		look.matches = max(look.matches, n)
	}
	if oc, ok := firstOtherCase(qs, func(q textQuery) []textHit { return ocrHits(q, res, vi) }); ok {
		look.otherCase = oc
	}
	return look, nil
}

// blind says whether nothing could search the screen: no usable UI tree and no vision worker.
func (l screenLook) blind() bool { return !l.found && !l.treeUsable && l.ocrErr != nil }

// sought is what a search looked for, as its messages name it: "text "OK"", or "the texts
// "A", "B"" (many), which takes a plural verb.
type sought struct {
	name string
	many bool
}

// verb is one or, for many, other: "is" or "are".
func (s sought) verb(one, other string) string {
	if s.many {
		return other
	}
	return one
}

// notFound says that what was not found on the screen, and what looked.
func (l screenLook) notFound(what sought) string {
	isNot := what.name + " " + what.verb("is", "are") + " not"
	switch {
	case l.ocrErr != nil:
		return fmt.Sprintf("%s in the UI tree, and OCR could not look: %v", isNot, l.ocrErr)
	case l.source == SourceOCR && l.treeNote != "":
		return fmt.Sprintf("%s on screen (%s; OCR did not read it)", isNot, l.treeNote)
	case l.source == SourceOCR:
		return fmt.Sprintf("%s on screen (neither in the UI tree nor read by OCR)", isNot)
	}
	return isNot + " on screen"
}

// bboxOf is r relative to a screen of size, [left, top, right, bottom] rounded to 3 decimals.
func bboxOf(r image.Rectangle, size image.Point) []float64 {
	w, h := float64(max(size.X, 1)), float64(max(size.Y, 1))
	round := func(v float64) float64 { return float64(int(v*1000+0.5)) / 1000 }
	return []float64{round(float64(r.Min.X) / w), round(float64(r.Min.Y) / h), round(float64(r.Max.X) / w), round(float64(r.Max.Y) / h)}
}

// tapHit taps the middle of hit's box moved by offset pixels, kept on the screen, and returns
// the point tapped.
func tapHit(ctx context.Context, t *Task, hit textHit, size image.Point, offset []int) (device.Point, error) {
	c := image.Pt((hit.Box.Min.X+hit.Box.Max.X)/2, (hit.Box.Min.Y+hit.Box.Max.Y)/2)
	if len(offset) == 2 {
		// An offset off the screen is a mistake, not a tap on its edge: that would press
		// whatever is there.
		if o := c.Add(image.Pt(offset[0], offset[1])); !o.In(image.Rectangle{Max: size}) {
			return device.Point{}, BadInput("tap_offset [%d,%d] from the centre (%d, %d) of what was found is (%d, %d), outside the %dx%d screen: nothing tapped; choose an offset that stays on the screen",
				offset[0], offset[1], c.X, c.Y, o.X, o.Y, size.X, size.Y)
		}
		c = c.Add(image.Pt(offset[0], offset[1]))
	}
	p := device.Point{X: max(0, min(size.X-1, c.X)), Y: max(0, min(size.Y-1, c.Y))}
	t.aimAt(hit.Box)
	return p, t.tapAt(ctx, p, 0)
}
