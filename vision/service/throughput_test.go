//go:build vision

package service

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/vision"
	"github.com/corral-farm/corral/vision/corpus"
	"github.com/corral-farm/corral/vision/worker"
)

// BenchmarkWorkers is the throughput of one and of two workers (each one engine slot: a core),
// in the queue group of one NATS server, asked for the OCR of 1080×2400 screens by eight
// callers at once, as nodes would: requests/s side by side (make bench reports their ratio).
func BenchmarkWorkers(b *testing.B) {
	var imgs [][]byte
	for seed := range uint64(4) {
		s, err := corpus.Draw(corpus.Spec{Layout: corpus.Layouts[seed], Seed: seed})
		if err != nil {
			b.Fatal(err)
		}
		png, err := s.PNG()
		if err != nil {
			b.Fatal(err)
		}
		imgs = append(imgs, png)
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			conn := natsServer(b)
			for i := range workers {
				eng, err := worker.New(worker.Options{Parallel: 1})
				if err != nil {
					b.Fatalf("the vision engine does not start (make setup): %v", err)
				}
				b.Cleanup(eng.Close)
				startWorker(b, conn(), Options{Engine: eng, Parallel: 1, Instance: fmt.Sprintf("w%d", i+1), Log: slog.New(slog.DiscardHandler)})
			}
			client := vision.NewClient(conn(), time.Minute)
			ocr := func(i int) error {
				_, err := client.OCR(context.Background(), vision.OCRRequest{V: vision.WireVersion, Image: imgs[i%len(imgs)]})
				return err
			}
			for i := range 2 * workers { // every engine's Tesseract instance warm
				if err := ocr(i); err != nil {
					b.Fatal(err)
				}
			}
			const callers = 8
			b.ResetTimer()
			start := time.Now()
			next := make(chan int)
			var wg sync.WaitGroup
			for range callers {
				wg.Go(func() {
					for i := range next {
						if err := ocr(i); err != nil {
							b.Error(err)
						}
					}
				})
			}
			for i := 0; b.Loop(); i++ {
				next <- i
			}
			close(next)
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
		})
	}
}
