//go:build vision

package worker

import (
	"context"
	"image"
	"image/color"
	"image/draw"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/corral-farm/corral/vision"
	"github.com/corral-farm/corral/vision/corpus"
)

// cpuTime is the CPU time the process used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// report adds ms/op, the median of the iterations (p50-ms) and the CPU time an iteration took
// (cpu-ms/op: what the call costs, whatever else the machine runs) to b's results.
func report(b *testing.B, took []time.Duration, cpu time.Duration) {
	b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(len(took)), "cpu-ms/op")
	slices.Sort(took)
	var sum time.Duration
	for _, d := range took {
		sum += d
	}
	b.ReportMetric(float64(sum.Microseconds())/1e3/float64(len(took)), "ms/op")
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1e3, "p50-ms")
}

// BenchmarkOCR reads a 1080×2400 settings screen with the default languages (eng+chi_sim).
func BenchmarkOCR(b *testing.B) {
	e := newEngine(b)
	img := encodePNG(b, settingsScreen(b, false).Image)
	ctx := context.Background()
	if _, err := e.OCR(ctx, vision.OCRRequest{Image: img}); err != nil { // a warm instance
		b.Fatal(err)
	}
	var took []time.Duration
	cpu0 := cpuTime()
	for b.Loop() {
		start := time.Now()
		if _, err := e.OCR(ctx, vision.OCRRequest{Image: img}); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	report(b, took, cpuTime()-cpu0)
}

// BenchmarkMatch finds an icon cut from a 1080×2400 screen in it, at 0.75-1.5×.
func BenchmarkMatch(b *testing.B) {
	e := newEngine(b)
	s := settingsScreen(b, false)
	req := vision.MatchRequest{Image: encodePNG(b, s.Image), Template: encodePNG(b, corpus.Crop(s.Image, s.Icons[4].Box))}
	ctx := context.Background()
	var took []time.Duration
	cpu0 := cpuTime()
	for b.Loop() {
		start := time.Now()
		res, err := e.Match(ctx, req)
		if err != nil || len(res.Matches) == 0 {
			b.Fatal(err, res)
		}
		took = append(took, time.Since(start))
	}
	report(b, took, cpuTime()-cpu0)
}

// BenchmarkElements lists the elements of a 1080×2400 screen (English).
func BenchmarkElements(b *testing.B) {
	e := newEngine(b)
	req := vision.ElementsRequest{Image: encodePNG(b, settingsScreen(b, false).Image), Languages: []string{"eng"}}
	ctx := context.Background()
	var took []time.Duration
	cpu0 := cpuTime()
	for b.Loop() {
		start := time.Now()
		if _, err := e.Elements(ctx, req); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	report(b, took, cpuTime()-cpu0)
}

// BenchmarkOCRParallel reads the screen from GOMAXPROCS goroutines on an engine with as many
// slots: against BenchmarkOCR's ms/op, its ms/op shows what a second core adds.
func BenchmarkOCRParallel(b *testing.B) {
	e := newEngine(b)
	img := encodePNG(b, settingsScreen(b, false).Image)
	ctx := context.Background()
	if _, err := e.OCR(ctx, vision.OCRRequest{Image: img}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := e.OCR(ctx, vision.OCRRequest{Image: img}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}

// BenchmarkMatchColourTie finds one of two icons of one shape in other colours on a 1080×2400
// screen (they tie in gray: the colour image is decoded to tell them apart).
func BenchmarkMatchColourTie(b *testing.B) {
	e := newEngine(b)
	canvas := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
	draw.Draw(canvas, canvas.Bounds(), image.NewUniform(color.RGBA{0xf4, 0xf4, 0xf4, 0xff}), image.Point{}, draw.Src)
	red, blue := image.Rect(400, 600, 544, 744), image.Rect(400, 1600, 544, 1744)
	drawIcon(canvas, red, color.RGBA{0xd0, 0x30, 0x30, 0xff})
	drawIcon(canvas, blue, color.RGBA{0x20, 0x50, 0xd0, 0xff})
	req := vision.MatchRequest{Image: encodePNG(b, canvas), Template: encodePNG(b, corpus.Crop(canvas, blue))}
	ctx := context.Background()
	var took []time.Duration
	cpu0 := cpuTime()
	for b.Loop() {
		start := time.Now()
		res, err := e.Match(ctx, req)
		if err != nil || len(res.Matches) < 2 {
			b.Fatal(err, res)
		}
		took = append(took, time.Since(start))
	}
	report(b, took, cpuTime()-cpu0)
}
