//go:build vision

package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/vision"
	"github.com/corral-farm/corral/vision/corpus"
)

var (
	fuzzOnce   sync.Once
	fuzzEngine *Engine
	fuzzErr    error
)

// FuzzEngineRequests decodes the payload as each operation's request, as a worker does, and
// runs it: whatever the bytes, the engine answers or refuses, and never panics nor crashes.
func FuzzEngineRequests(f *testing.F) {
	s := settingsScreen(f, false)
	small := encodePNG(f, corpus.Crop(s.Image, image.Rect(40, 300, 360, 460)))
	icon := encodePNG(f, corpus.Crop(s.Image, s.Icons[0].Box))
	tiny := encodePNG(f, corpus.Crop(s.Image, image.Rect(0, 0, 8, 8)))
	for _, req := range []any{
		vision.OCRRequest{V: 1, Image: small, Languages: []string{"eng"}},
		vision.OCRRequest{Image: tiny},
		vision.MatchRequest{V: 1, Image: small, Template: icon, Threshold: 0.7, MinScale: 0.5, MaxScale: 2, Max: 3},
		vision.MatchRequest{Image: icon, Template: tiny},
		vision.ElementsRequest{Image: small, Languages: []string{"eng"}},
		vision.DiffRequest{Before: small, After: small},
		vision.AnnotateRequest{Image: small, Marks: []vision.Mark{{Box: vision.Box{X: 5, Y: 5, W: 50, H: 20}, Label: "a"}}},
	} {
		data, err := json.Marshal(req)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"image":"iVBORw0KGgo=","template":"/9j/","before":"","marks":[{"box":{"x":-9223372036854775808,"w":9223372036854775807}}]}`))
	fuzzOnce.Do(func() { fuzzEngine, fuzzErr = New(Options{Parallel: 2}) })
	if fuzzErr != nil {
		f.Fatal(fuzzErr)
	}
	e := fuzzEngine
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		// An input the engine is stuck on fails, so the fuzzer keeps it.
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(45 * time.Second):
				panic(fmt.Sprintf("the engine is stuck on %q", data))
			}
		}()
		check := func(op string, err error) {
			var ve *vision.Error
			if err != nil && !errors.As(err, &ve) && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s: %v is neither a *vision.Error nor the deadline", op, err)
			}
		}
		var o vision.OCRRequest
		if json.Unmarshal(data, &o) == nil {
			_, err := e.OCR(ctx, o)
			check("ocr", err)
		}
		var m vision.MatchRequest
		if json.Unmarshal(data, &m) == nil {
			_, err := e.Match(ctx, m)
			check("match", err)
		}
		var el vision.ElementsRequest
		if json.Unmarshal(data, &el) == nil {
			_, err := e.Elements(ctx, el)
			check("elements", err)
		}
		var d vision.DiffRequest
		if json.Unmarshal(data, &d) == nil {
			_, err := e.Diff(ctx, d)
			check("diff", err)
		}
		var a vision.AnnotateRequest
		if json.Unmarshal(data, &a) == nil {
			_, err := e.Annotate(ctx, a)
			check("annotate", err)
		}
	})
}
