//go:build vision

package worker

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/vision"
	"github.com/corral-farm/corral/vision/corpus"
)

func newEngine(t testing.TB) *Engine {
	t.Helper()
	e, err := New(Options{Parallel: 2})
	if err != nil {
		t.Fatalf("the vision engine does not start (make setup installs Tesseract and its languages): %v", err)
	}
	t.Cleanup(e.Close)
	return e
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestOCRFindsTheWordsOfAScreen(t *testing.T) {
	e := newEngine(t)
	for _, tc := range []struct {
		name      string
		dark      bool
		minRecall float64
	}{
		// Measured: 31 of 33 words, light and dark; Tesseract's sparse-text mode does not see
		// the lone digits at the ends of two rows (TestAccuracy holds the corpus's recall).
		{"light", false, 0.93},
		{"dark", true, 0.93},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := settingsScreen(t, tc.dark)
			res, err := e.OCR(testCtx(t), vision.OCRRequest{Image: encodePNG(t, s.Image), Languages: []string{"eng"}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Width != 1080 || res.Height != 2400 || res.V != vision.WireVersion {
				t.Fatalf("result is %d×%d v%d, want 1080×2400 v%d", res.Width, res.Height, res.V, vision.WireVersion)
			}
			sc := corpus.ScoreOCR(s.Words, corpus.WordsOf(res))
			t.Logf("%s: word recall %.3f (%d words), precision %.3f, mean box IoU %.3f, missed %q", s.Name, sc.Recall, sc.Truth, sc.Precision, sc.MeanIoU, sc.Missed)
			if sc.Recall < tc.minRecall {
				t.Errorf("word recall %.3f, want ≥ %.2f; missed %q", sc.Recall, tc.minRecall, sc.Missed)
			}
			if sc.MeanIoU < 0.75 {
				t.Errorf("mean box IoU %.3f, want ≥ 0.75", sc.MeanIoU)
			}
			for _, l := range res.Lines {
				if l.Confidence <= 0 || l.Confidence > 1 {
					t.Errorf("line %q has confidence %v, want (0, 1]", l.Text, l.Confidence)
				}
				for _, w := range l.Words {
					if !l.Box.Rect().Union(w.Box.Rect()).Eq(l.Box.Rect()) {
						t.Errorf("word %q box %v is outside its line %q box %v", w.Text, w.Box, l.Text, l.Box)
					}
				}
			}
			// Reading order: a label's line comes before the next row's.
			text := joinLines(res)
			first, second := row(t, s, 0).Text, row(t, s, 1).Text
			if i, j := strings.Index(text, first), strings.Index(text, second); i < 0 || j < 0 || i > j {
				t.Errorf("lines are not in reading order, or %q or %q is not one line:\n%s", first, second, text)
			}
		})
	}
}

func joinLines(res vision.OCRResult) string {
	var b strings.Builder
	for _, l := range res.Lines {
		b.WriteString(l.Text + "\n")
	}
	return b.String()
}

func TestOCRReadsChinese(t *testing.T) {
	e := newEngine(t)
	s := drawScreen(t, corpus.Spec{Layout: corpus.Settings, Chinese: true, Seed: 1})
	res, err := e.OCR(testCtx(t), vision.OCRRequest{Image: encodePNG(t, s.Image)}) // default: eng+chi_sim
	if err != nil {
		t.Fatal(err)
	}
	sc := corpus.ScoreOCR(s.Words, corpus.WordsOf(res))
	t.Logf("%s: word recall %.3f of %d, precision %.3f, missed %q; lines %q", s.Name, sc.Recall, sc.Truth, sc.Precision, sc.Missed, joinLines(res))
	// Measured with Debian's fast chi_sim model: 18 of 24 (网络 read 网 and 终, 开启 开局).
	if sc.Recall < 0.7 {
		t.Errorf("word recall %.3f, want ≥ 0.7; missed %q", sc.Recall, sc.Missed)
	}
	// Chinese characters of a line are one word, joined without spaces.
	for _, l := range res.Lines {
		if strings.Contains(l.Text, " ") && isCJKOnly(strings.ReplaceAll(l.Text, " ", "")) {
			t.Errorf("line %q joins Chinese characters with spaces", l.Text)
		}
	}
}

func isCJKOnly(s string) bool {
	for _, r := range s {
		if !isCJK(r) {
			return false
		}
	}
	return true
}

func TestOCRUpscalesSmallImages(t *testing.T) {
	e := newEngine(t)
	s := settingsScreen(t, false)
	// The first row, shrunk to half: text 11 px tall.
	r := row(t, s, 0)
	small := corpus.Scale(corpus.Crop(s.Image, r.Box), 0.5)
	res, err := e.OCR(testCtx(t), vision.OCRRequest{Image: encodePNG(t, small), Languages: []string{"eng"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := joinLines(res); !strings.Contains(text, r.Text) {
		t.Errorf("read %q from small text, want %s", text, r.Text)
	}
}

func TestMatchFindsAnIconAtOtherScales(t *testing.T) {
	e := newEngine(t)
	s := settingsScreen(t, false)
	icon := s.Icons[4].Box
	tpl := encodePNG(t, corpus.Crop(s.Image, icon))
	for _, f := range []float64{0.75, 1, 1.5} {
		img := scaledPNG(t, s.Image, f)
		start := time.Now()
		res, err := e.Match(testCtx(t), vision.MatchRequest{Image: img, Template: tpl})
		if err != nil {
			t.Fatal(err)
		}
		want := corpus.ScaleRect(icon, f)
		if len(res.Matches) == 0 {
			t.Errorf("scale %v: no match, want one at %v", f, want)
			continue
		}
		m := res.Matches[0]
		t.Logf("scale %v: best %v score %.3f scale %.3f IoU %.3f (%d matches, %v)", f, m.Box, m.Score, m.Scale, iou(m.Box.Rect(), want), len(res.Matches), time.Since(start))
		if got := iou(m.Box.Rect(), want); got < 0.8 {
			t.Errorf("scale %v: best match %v (score %.3f), IoU %.3f with %v, want > 0.8", f, m.Box, m.Score, got, want)
		}
		for i, o := range res.Matches {
			if o.Score < 0.8 || (i > 0 && o.Score > res.Matches[i-1].Score) {
				t.Errorf("scale %v: matches %v are not all ≥ 0.8, best first", f, res.Matches)
			}
		}
	}
}

func TestMatchNotFound(t *testing.T) {
	e := newEngine(t)
	s := settingsScreen(t, false)
	other := image.NewRGBA(image.Rect(0, 0, 200, 200))
	draw.Draw(other, other.Bounds(), image.White, image.Point{}, draw.Src)
	for i := range 5 { // stripes no screen icon has
		draw.Draw(other, image.Rect(0, i*40, 200, i*40+13), image.NewUniform(color.RGBA{0x30, 0x90, 0x10, 0xff}), image.Point{}, draw.Src)
	}
	res, err := e.Match(testCtx(t), vision.MatchRequest{Image: encodePNG(t, s.Image), Template: encodePNG(t, corpus.Crop(other, image.Rect(20, 20, 120, 120)))})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) != 0 {
		t.Errorf("a template not on the screen matched at %v", res.Matches)
	}
}

func TestElementsListTextAndIcons(t *testing.T) {
	e := newEngine(t)
	s := settingsScreen(t, false)
	png := encodePNG(t, s.Image)
	res, err := e.Elements(testCtx(t), vision.ElementsRequest{Image: png, Languages: []string{"eng"}})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	var texts []string
	for i, el := range res.Elements {
		if ids[el.ID] {
			t.Errorf("id %s twice", el.ID)
		}
		ids[el.ID] = true
		if el.Confidence <= 0 || el.Confidence > 1 {
			t.Errorf("%s %q has confidence %v", el.ID, el.Text, el.Confidence)
		}
		if el.Kind == "text" {
			texts = append(texts, el.Text)
		}
		if i > 0 {
			p := res.Elements[i-1].Box
			if p.Y+p.H/2 > el.Box.Y+el.Box.H && p.X > el.Box.X {
				t.Errorf("%v comes after %v: not top to bottom, left to right", el.Box, p)
			}
		}
	}
	if label := row(t, s, 1).Text; !strings.Contains(strings.Join(texts, "\n"), label) {
		t.Errorf("no text element %s in %q", label, texts)
	}
	found := 0
	for _, icon := range s.Icons {
		for _, el := range res.Elements {
			if el.Kind == "icon" && iou(el.Box.Rect(), icon.Box) > 0.7 {
				found++
				break
			}
		}
	}
	t.Logf("%d elements (%d text), %d of %d icons found", len(res.Elements), len(texts), found, len(s.Icons))
	if found < len(s.Icons)*9/10 {
		t.Errorf("found %d of the %d icons", found, len(s.Icons))
	}
	again, err := e.Elements(testCtx(t), vision.ElementsRequest{Image: png, Languages: []string{"eng"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range again.Elements {
		if i >= len(res.Elements) || again.Elements[i].ID != res.Elements[i].ID {
			t.Fatalf("ids differ between two listings of one screen")
		}
	}
}

func TestDiff(t *testing.T) {
	e := newEngine(t)
	s := settingsScreen(t, false)
	before := encodePNG(t, s.Image)
	res, err := e.Diff(testCtx(t), vision.DiffRequest{Before: before, After: before})
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed || res.Ratio != 0 || len(res.Boxes) != 0 {
		t.Errorf("identical frames: %+v, want unchanged", res)
	}
	changed := image.Rect(300, 1000, 800, 1300)
	draw.Draw(s.Image, changed, image.NewUniform(color.RGBA{0x20, 0x60, 0xd0, 0xff}), image.Point{}, draw.Src)
	res, err = e.Diff(testCtx(t), vision.DiffRequest{Before: before, After: encodePNG(t, s.Image)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || len(res.Boxes) == 0 {
		t.Fatalf("a changed region: %+v, want changed", res)
	}
	if got := iou(res.Boxes[0].Rect(), changed); got < 0.9 || len(res.Boxes) != 1 {
		t.Errorf("changed boxes %v, want one at %v (IoU %.3f)", res.Boxes, changed, got)
	}
	// A JPEG of the same frame is no change.
	var j bytes.Buffer
	if err := jpeg.Encode(&j, s.Image, &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	res, err = e.Diff(testCtx(t), vision.DiffRequest{Before: encodePNG(t, s.Image), After: j.Bytes()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed {
		t.Errorf("a frame and its JPEG: %+v, want unchanged", res)
	}
}

func TestAnnotate(t *testing.T) {
	e := newEngine(t)
	s := settingsScreen(t, false)
	res, err := e.Annotate(testCtx(t), vision.AnnotateRequest{Image: encodePNG(t, s.Image), Marks: []vision.Mark{
		{Box: vision.Box{X: 60, Y: 336, W: 96, H: 96}, Label: "i1 Network"},
		{Box: vision.Box{X: 0, Y: 0, W: 50, H: 50}, Label: "设置"},
		{Box: vision.Box{X: -500, Y: 5000, W: 10, H: 10}, Label: "outside"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	img, err := jpeg.Decode(bytes.NewReader(res.JPEG))
	if err != nil {
		t.Fatalf("the annotation is no JPEG: %v", err)
	}
	if img.Bounds().Dx() != 1080 || img.Bounds().Dy() != 2400 {
		t.Fatalf("annotated image is %v", img.Bounds())
	}
	// The box's left edge is drawn in the annotation colour.
	r, g, b, _ := img.At(61, 400).RGBA()
	if r>>8 < 200 || g>>8 > 100 || b>>8 < 80 {
		t.Errorf("pixel on the box's edge is %d,%d,%d, want the annotation colour", r>>8, g>>8, b>>8)
	}
}

// pngHeader is the start of a PNG that says it is w×h: enough for a decoder's header check.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 2 // 8-bit RGB
	_ = binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	chunk := append([]byte("IHDR"), ihdr...)
	b.Write(chunk)
	_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

func TestBadInputIsRefusedClearly(t *testing.T) {
	e := newEngine(t)
	s := settingsScreen(t, false)
	good := encodePNG(t, s.Image)
	small := encodePNG(t, corpus.Crop(s.Image, image.Rect(0, 0, 100, 100)))
	flat := image.NewRGBA(image.Rect(0, 0, 80, 80))
	for i := range flat.Pix {
		flat.Pix[i] = 0xc0
	}
	truncated := good[:len(good)/2]
	var jpg bytes.Buffer
	_ = jpeg.Encode(&jpg, corpus.Crop(s.Image, image.Rect(0, 0, 300, 300)), nil)
	huge := append(pngHeader(100, 100), make([]byte, vision.MaxImageBytes)...)
	ocr := func(img []byte, langs ...string) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := e.OCR(ctx, vision.OCRRequest{Image: img, Languages: langs})
			return err
		}
	}
	matchReq := func(r vision.MatchRequest) func(context.Context) error {
		return func(ctx context.Context) error { _, err := e.Match(ctx, r); return err }
	}
	for _, tc := range []struct {
		name string
		call func(context.Context) error
		says string
	}{
		{"empty image", ocr(nil), "empty"},
		{"not an image", ocr([]byte("hello, I am a screenshot")), "not a PNG or JPEG"},
		{"a GIF", ocr([]byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;")), "not a PNG or JPEG"},
		{"0×0 image", ocr(pngHeader(0, 0)), "PNG"},
		{"20000×20000 image", ocr(pngHeader(20000, 20000)), "megapixel"},
		{"20001×10 image", ocr(pngHeader(20001, 10)), "pixel limit"},
		{"over MaxImageBytes", ocr(huge), "byte limit"},
		{"truncated PNG", ocr(truncated), "damaged"},
		{"truncated JPEG header", ocr(jpg.Bytes()[:200]), "PNG or JPEG"},
		{"unknown language", ocr(small, "klingon"), "unknown OCR language"},
		{"a path as language", ocr(small, "../../etc/passwd"), "unknown OCR language"},
		{"too many languages", ocr(small, "eng", "eng", "eng", "eng", "eng"), "at most"},
		{"wire version", func(ctx context.Context) error {
			_, err := e.OCR(ctx, vision.OCRRequest{V: 99, Image: small})
			return err
		}, "wire version"},
		{"template larger than the image", matchReq(vision.MatchRequest{Image: small, Template: good}), "larger than the image"},
		{"textureless template", matchReq(vision.MatchRequest{Image: good, Template: encodePNG(t, flat)}), "no texture"},
		{"tiny template", matchReq(vision.MatchRequest{Image: good, Template: encodePNG(t, corpus.Crop(s.Image, image.Rect(60, 336, 63, 339)))}), "at least"},
		{"threshold over 1", matchReq(vision.MatchRequest{Image: good, Template: small, Threshold: 1.5}), "threshold"},
		{"negative threshold", matchReq(vision.MatchRequest{Image: good, Template: small, Threshold: -1}), "threshold"},
		{"scales upside down", matchReq(vision.MatchRequest{Image: good, Template: small, MinScale: 2, MaxScale: 1}), "scales"},
		{"scales too wide", matchReq(vision.MatchRequest{Image: good, Template: small, MinScale: 0.2, MaxScale: 8}), "span"},
		{"max too large", matchReq(vision.MatchRequest{Image: good, Template: small, Max: 100000}), "max"},
		{"template not an image", matchReq(vision.MatchRequest{Image: good, Template: []byte("x")}), "template"},
		{"diff of different sizes", func(ctx context.Context) error {
			_, err := e.Diff(ctx, vision.DiffRequest{Before: good, After: small})
			return err
		}, "differ in size"},
		{"diff without after", func(ctx context.Context) error {
			_, err := e.Diff(ctx, vision.DiffRequest{Before: good})
			return err
		}, "after image is empty"},
		{"elements of no image", func(ctx context.Context) error {
			_, err := e.Elements(ctx, vision.ElementsRequest{Image: []byte{0xff, 0xd8, 0xff}})
			return err
		}, "PNG or JPEG"},
		{"annotate a negative box", func(ctx context.Context) error {
			_, err := e.Annotate(ctx, vision.AnnotateRequest{Image: small, Marks: []vision.Mark{{Box: vision.Box{W: -5, H: 5}}}})
			return err
		}, "negative size"},
		{"annotate too many marks", func(ctx context.Context) error {
			_, err := e.Annotate(ctx, vision.AnnotateRequest{Image: small, Marks: make([]vision.Mark, MaxMarks+1)})
			return err
		}, "at most"},
		{"annotate a 10 KB label", func(ctx context.Context) error {
			_, err := e.Annotate(ctx, vision.AnnotateRequest{Image: small, Marks: []vision.Mark{{Label: strings.Repeat("x", 10<<10)}}})
			return err
		}, "at most"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call(testCtx(t))
			var ve *vision.Error
			if !errors.As(err, &ve) || ve.Code != vision.CodeBadInput {
				t.Fatalf("got %v, want a *vision.Error with CodeBadInput", err)
			}
			if !strings.Contains(ve.Message, tc.says) {
				t.Errorf("message %q does not say %q", ve.Message, tc.says)
			}
		})
	}
	// The engine still works.
	if _, err := e.OCR(testCtx(t), vision.OCRRequest{Image: small, Languages: []string{"eng"}}); err != nil {
		t.Errorf("after bad input, OCR fails: %v", err)
	}
}

func TestConcurrentCallsShareTheEngine(t *testing.T) {
	e := newEngine(t)
	s := settingsScreen(t, false)
	rows := encodePNG(t, corpus.Crop(s.Image, row(t, s, 0).Box.Union(row(t, s, 2).Box)))
	label := row(t, s, 1).Text
	icon := s.Icons[1].Box
	var wg sync.WaitGroup
	errs := make(chan error, 12)
	for i := range 6 {
		wg.Go(func() {
			langs := []string{"eng"}
			if i%2 == 1 {
				langs = nil
			}
			res, err := e.OCR(testCtx(t), vision.OCRRequest{Image: rows, Languages: langs})
			if err == nil && !strings.Contains(joinLines(res), label) {
				err = errors.New("read " + joinLines(res))
			}
			errs <- err
			_, err = e.Match(testCtx(t), vision.MatchRequest{Image: rows, Template: encodePNG(t, corpus.Crop(s.Image, icon))})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestCancelledOCRStops(t *testing.T) {
	e := newEngine(t)
	s := settingsScreen(t, false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.OCR(ctx, vision.OCRRequest{Image: encodePNG(t, s.Image)})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("OCR with a cancelled context: %v, want context.Canceled", err)
	}
}

// TestMatchFindsEveryIcon cuts each of the screen's icons and looks for it in the screen
// drawn at 0.75, 1, 1.25 and 1.5 times its size (as on phones of other densities): the best
// match must be the icon (IoU > 0.8).
func TestMatchFindsEveryIcon(t *testing.T) {
	if testing.Short() {
		t.Skip("60 matches")
	}
	e := newEngine(t)
	s := settingsScreen(t, false)
	found, total := 0, 0
	for _, f := range []float64{0.75, 1, 1.25, 1.5} {
		img := scaledPNG(t, s.Image, f)
		for i, icon := range s.Icons {
			total++
			res, err := e.Match(testCtx(t), vision.MatchRequest{Image: img, Template: encodePNG(t, corpus.Crop(s.Image, icon.Box))})
			if err != nil {
				t.Fatal(err)
			}
			want := corpus.ScaleRect(icon.Box, f)
			if len(res.Matches) > 0 && iou(res.Matches[0].Box.Rect(), want) > 0.8 {
				found++
			} else {
				t.Logf("scale %v icon %d at %v: matches %v", f, i, want, res.Matches)
			}
		}
	}
	t.Logf("found %d of %d icons (%.1f %%)", found, total, 100*float64(found)/float64(total))
	if found < total*99/100 {
		t.Errorf("found %d of %d icons, want ≥ 99 %%", found, total)
	}
}

// An engine's calls each run on one thread: OpenCV's own pool is off (threads.go).
func TestEngineRunsOpenCVOnTheCallersThread(t *testing.T) {
	newEngine(t)
	if n := openCVThreads(); n != 1 {
		t.Errorf("OpenCV runs its functions on %d threads, want 1 (the caller's)", n)
	}
}
