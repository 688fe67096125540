//go:build vision

package service

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/corral-farm/corral/vision"
	"github.com/corral-farm/corral/vision/corpus"
	"github.com/corral-farm/corral/vision/worker"
)

// BenchmarkWorkers is the throughput of one and of two workers (each one engine slot: a core),
// in the queue group of one NATS server, asked for the OCR of 1080×2400 screens by eight
// callers at once, as nodes would: requests/s side by side (make bench reports their ratio).
//
// It reports two rates. req/s is the whole batch: b.N requests over the time from the first
// sent to the last answered. steady-req/s leaves out the start, while the first answers are
// still being worked on, and the end, while the last eight drain: a queue group hands each
// request to a random member, so as the batch drains one of two workers often stands idle
// while the other clears its queue, which a batch of a few dozen requests counts against two
// workers (and a farm under steady load does not see). It is the answers from the callers-th
// to the (b.N - callers)-th over the time between them; b.N must be over 3 × callers.
//
// Two workers need both cores of a 2-core machine: whatever else runs there takes from them
// and hardly from one worker (which leaves a core free). other-cores is how many cores other
// processes kept busy during the run (from /proc/stat, less this process's CPU time): a run
// with more than a few tenths is not a fair comparison.
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
			busy0, cpu0 := machineBusy(), processCPU()
			start := time.Now()
			next := make(chan int)
			var (
				wg   sync.WaitGroup
				mu   sync.Mutex
				done []time.Time // when each answer came, in order
			)
			for range callers {
				wg.Go(func() {
					for i := range next {
						if err := ocr(i); err != nil {
							b.Error(err)
						}
						mu.Lock()
						done = append(done, time.Now())
						mu.Unlock()
					}
				})
			}
			for i := 0; b.Loop(); i++ {
				next <- i
			}
			close(next)
			wg.Wait()
			wall := time.Since(start)
			b.ReportMetric(float64(b.N)/wall.Seconds(), "req/s")
			if busy1 := machineBusy(); busy0 >= 0 && busy1 >= 0 {
				b.ReportMetric(max(0, (busy1-busy0-(processCPU()-cpu0)).Seconds()/wall.Seconds()), "other-cores")
			}
			if first, last := callers, len(done)-callers; last-first >= callers {
				b.ReportMetric(float64(last-first)/done[last].Sub(done[first]).Seconds(), "steady-req/s")
			}
		})
	}
}

// machineBusy is the CPU time all processes have used, from /proc/stat (negative where it
// cannot be read).
func machineBusy() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return -1
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	if len(f) < 9 || f[0] != "cpu" {
		return -1
	}
	var ticks int64
	for i, v := range f[1:9] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return -1
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}

// processCPU is the CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
