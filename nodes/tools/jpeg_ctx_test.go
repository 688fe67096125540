package tools

import (
	"context"
	"errors"
	"image"
	"testing"

	"github.com/corral-farm/corral/internal/ctxtest"
)

// never is n for a context that does not end.
const never = ctxtest.Never

// A screen's JPEG stops encoding at its first look at ctx after the task's deadline passed,
// rows into the image rather than at its end, and says why with the context's cause.
func TestEncodeRGBAStopsPartWayWhenItsContextEnds(t *testing.T) {
	img := testImage(1080, 2400)
	ctx := ctxtest.New(t, 3)
	if jpg, err := encodeRGBA(ctx, img, 85); !errors.Is(err, ctxtest.ErrTaskDeadline) {
		t.Fatalf("an encoding whose ctx ended after 3 looks: %d bytes, %v; want the cause %q", len(jpg), err, ctxtest.ErrTaskDeadline)
	}
	if rows := ctx.Looks() * lookRows; rows >= 2400 {
		t.Errorf("encoded up to %d rows of 2400 after its ctx ended at the 4th look", rows)
	}
}

// The public helpers stop part way too: a full run looks at ctx once a lookRows rows at least
// (so it can stop anywhere), and one whose deadline passes mid-work stops within a look per
// worker and answers the cause, not an image.
func TestImageHelpersStopPartWayWhenTheirContextEnds(t *testing.T) {
	img := testImage(1080, 2400)
	for _, c := range []struct {
		name string
		rows int64 // rows of work, at least one look each lookRows (0: a scaler without looks of its own)
		run  func(ctx context.Context) (any, error)
	}{
		{"EncodeJPEG", 2400, func(ctx context.Context) (any, error) { return EncodeJPEG(ctx, img, MaxImageBytes) }},
		{"FitWidth 400", 889, func(ctx context.Context) (any, error) { return FitWidth(ctx, img, 400) }},
		{"FitWidth half", 1200, func(ctx context.Context) (any, error) { return FitWidth(ctx, img, 540) }},
		{"FitWidth YCbCr", 0, func(ctx context.Context) (any, error) {
			return FitWidth(ctx, image.NewYCbCr(image.Rect(0, 0, 1080, 2400), image.YCbCrSubsampleRatio420), 400)
		}},
		{"halve", 1200, func(ctx context.Context) (any, error) { return halve(ctx, img) }},
	} {
		full := ctxtest.New(t, never)
		if _, err := c.run(full); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if looks, want := full.Looks(), c.rows/lookRows; looks < want {
			t.Errorf("%s: %d looks at ctx over %d rows: it cannot stop part way", c.name, looks, c.rows)
		}
		n := min(2, full.Looks()-1) // it ends mid-work
		ctx := ctxtest.New(t, n)
		out, err := c.run(ctx)
		if !errors.Is(err, ctxtest.ErrTaskDeadline) {
			t.Errorf("%s: its ctx ended after %d looks: %v; want the cause %q", c.name, n, err, ctxtest.ErrTaskDeadline)
		}
		// Past the end: one look by each worker (8 at most), and one for the whole.
		if looks := ctx.Looks(); looks > n+1+8+1 {
			t.Errorf("%s: %d looks at ctx (%d for the whole work) though it ended at look %d: it went on (%T)", c.name, looks, full.Looks(), n+1, out)
		}
		t.Logf("%s: %d looks at ctx for the whole work, %d when it ends at look %d", c.name, full.Looks(), ctx.Looks(), n+1)
	}
}

func halved(t testing.TB, img image.Image) image.Image {
	t.Helper()
	out, err := halve(t.Context(), img)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func fitted(t testing.TB, img image.Image, width int) image.Image {
	t.Helper()
	out, err := FitWidth(t.Context(), img, width)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// BenchmarkEncodeScreenshot is a phone's screenshot through the whole encode path: EncodeJPEG,
// and FitWidth to half (halve's rows) and to 400 wide (the shrinker's). Against the same
// before the looks at ctx: they cost nothing measurable.
func BenchmarkEncodeScreenshot(b *testing.B) {
	img := testImage(1080, 2400)
	ctx, cancel := context.WithCancel(context.Background()) // a task's: a cancelCtx to look at
	defer cancel()
	b.Run("EncodeJPEG", func(b *testing.B) {
		for b.Loop() {
			if _, err := EncodeJPEG(ctx, img, MaxImageBytes); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, w := range []int{540, 400} {
		b.Run("FitWidth"+map[int]string{540: "Half", 400: "400"}[w], func(b *testing.B) {
			for b.Loop() {
				if _, err := FitWidth(ctx, img, w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
