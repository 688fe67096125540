//go:build vision

package worker

import (
	"image"
	"slices"
	"testing"

	"github.com/corral-farm/corral/vision"
	"github.com/corral-farm/corral/vision/corpus"
)

func TestJoinDigits(t *testing.T) {
	word := func(text string, x0, x1 int) tessWord {
		return tessWord{text: text, box: image.Rect(x0, 0, x1, 30), conf: 90, line: 1}
	}
	cases := []struct {
		name string
		in   []tessWord
		want []string
	}{
		{"colon starts the second", []tessWord{word("09", 0, 38), word(":12", 49, 100)}, []string{"09:12"}},
		{"colon ends the first", []tessWord{word("11:", 0, 50), word("05", 60, 100)}, []string{"11:05"}},
		{"colon alone", []tessWord{word("09", 0, 38), word(":", 45, 50), word("12", 58, 100)}, []string{"09:12"}},
		{"two numbers", []tessWord{word("12", 0, 38), word("30", 49, 100)}, []string{"12", "30"}},
		{"a label and a word", []tessWord{word("Note:", 0, 80), word("this", 90, 150)}, []string{"Note:", "this"}},
		{"a label and a number", []tessWord{word("Battery:", 0, 120), word("82", 130, 160)}, []string{"Battery:", "82"}},
		{"two colons", []tessWord{word("12:", 0, 50), word(":30", 58, 100)}, []string{"12:", ":30"}},
		{"far apart", []tessWord{word("09", 0, 38), word(":12", 80, 130)}, []string{"09", ":12"}},
		{"other lines", []tessWord{word("09", 0, 38), {text: ":12", box: image.Rect(49, 0, 100, 30), conf: 90, line: 2}}, []string{"09", ":12"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, w := range joinDigits(c.in) {
				got = append(got, w.text)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("joinDigits = %q, want %q", got, c.want)
			}
		})
	}
}

// TestOCRSecondLook reads corpus screens whose words the first pass alone gets wrong, each for
// its own reason, and holds what the second look (reread.go) and the dictionary mend:
//
//   - chat/light/gomono-44/10: times in a monospaced font ("09:12"), cut at their wide colon
//     into two lines, the colon lost ("11", "@5");
//   - form/dark/gomedium-44/7: a link in the accent colour on a dark theme ("Add a note"),
//     under the threshold of the whole screen, not read at all;
//   - settings/light/gomono-52/8: Go Mono's l read as L ("DispLay");
//   - settings/dark/gomono-52/8: "Display" read at 25 % confidence, under ocrMinConf;
//   - settings/light/goregular-36/12: a value of one digit ("7"), not read at all.
func TestOCRSecondLook(t *testing.T) {
	if testing.Short() {
		t.Skip("reads five screens")
	}
	e := newEngine(t)
	cases := []struct {
		cond  string
		seed  uint64
		words []string // drawn words that must be read, with their boxes
		tap   string   // an element tap_ocr must tap inside, or ""
	}{
		{"clean-light", 10, []string{"11:05", "09:12", "10:24", "08:30", "16:55"}, ""},
		{"clean-dark", 7, []string{"Add", "a", "note"}, "Add a note"},
		{"clean-light", 8, []string{"Display"}, "Display brightness"},
		{"clean-dark", 8, []string{"Display"}, "Display brightness"},
		{"clean-light", 12, []string{"7"}, ""},
	}
	for _, c := range cases {
		cond, ok := corpus.ConditionNamed(c.cond)
		if !ok {
			t.Fatalf("no condition %s", c.cond)
		}
		s, err := cond.Screen(c.seed)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			res, err := e.OCR(testCtx(t), vision.OCRRequest{Image: encodePNG(t, s.Image)})
			if err != nil {
				t.Fatal(err)
			}
			var truth []corpus.Word
			for _, w := range s.Words {
				if slices.Contains(c.words, w.Text) {
					truth = append(truth, w)
				}
			}
			if len(truth) == 0 {
				t.Fatalf("%s has none of the words %q: the corpus changed, pick another screen", s.Name, c.words)
			}
			if sc := corpus.ScoreOCR(truth, corpus.WordsOf(res)); sc.Matched != sc.Truth {
				t.Errorf("read %d of the %d words %q; missed %q (read %q)", sc.Matched, sc.Truth, c.words, sc.Missed, lineTexts(res))
			}
			if c.tap == "" {
				return
			}
			el, ok := s.Element(c.tap)
			if !ok {
				t.Fatalf("%s has no element %q", s.Name, c.tap)
			}
			if p, ok := corpus.TapText(res, c.tap); !ok || !p.In(el.Box) {
				t.Errorf("tap_ocr %q would tap %v (found %v), not inside %v; read %q", c.tap, p, ok, el.Box, lineTexts(res))
			}
		})
	}
}

func lineTexts(res vision.OCRResult) []string {
	var out []string
	for _, l := range res.Lines {
		out = append(out, l.Text)
	}
	return out
}
