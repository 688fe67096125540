package nodes

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

func TestSleep(t *testing.T) {
	op := DefaultOps()["sleep"]
	var mu sync.Mutex
	var reports [][2]float64
	d := newAbled()
	task := &Task{Driver: d, Args: []byte(`{"seconds":0.02}`), Progress: func(done, total float64, _ string) {
		mu.Lock()
		defer mu.Unlock()
		reports = append(reports, [2]float64{done, total})
	}}
	out, err := op.Run(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	if r := out.Data.(SleepResult); r.Seconds != 0.02 || r.Message == "" {
		t.Fatalf("result %+v", r)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := len(reports); n == 0 || reports[n-1] != [2]float64{0.02, 0.02} {
		t.Fatalf("progress reports %v: want a final one at 0.02 of 0.02", reports)
	}
	if len(d.Calls()) != 0 {
		t.Fatal("sleep touched the driver")
	}
}

func TestSleepMS(t *testing.T) {
	out, err := DefaultOps()["sleep_ms"].Run(context.Background(), &Task{Driver: newFake(), Args: []byte(`{"milliseconds":5}`)})
	if err != nil {
		t.Fatal(err)
	}
	if r := out.Data.(SleepMSResult); r.Milliseconds != 5 {
		t.Fatalf("result %+v", r)
	}
}

func TestSleepBadInput(t *testing.T) {
	for op, list := range map[string][]string{
		"sleep":    {`{}`, `{"seconds":-1}`, `{"seconds":3600.5}`, `{"seconds":"1"}`, `{"milliseconds":1}`},
		"sleep_ms": {`{}`, `{"milliseconds":-1}`, `{"milliseconds":3600001}`, `{"milliseconds":1.5}`, `{"milliseconds":1e30}`, `{"seconds":1}`},
	} {
		for _, args := range list {
			_, err := runOp(t, op, newFake(), args)
			wantCode(t, err, broker.CodeBadInput)
		}
	}
}

func TestSleepHonoursCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := DefaultOps()["sleep"].Run(ctx, &Task{Driver: newFake(), Args: []byte(`{"seconds":3600}`)})
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("want context.Canceled, got %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("sleep ignored cancellation")
	}
}

func TestSleepForReportsEveryTick(t *testing.T) {
	var mu sync.Mutex
	var done []float64
	err := sleepFor(context.Background(), 60*time.Millisecond, 10*time.Millisecond, func(d, total float64, msg string) {
		mu.Lock()
		defer mu.Unlock()
		if total != 0.06 || msg == "" {
			t.Errorf("progress total %v msg %q", total, msg)
		}
		done = append(done, d)
	})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(done) < 2 {
		t.Fatalf("want several progress reports, got %v", done)
	}
	for i := 1; i < len(done); i++ {
		if done[i] < done[i-1] || done[i] > 0.06 {
			t.Fatalf("progress not monotonic within the total: %v", done)
		}
	}
}

func TestSleepTimeoutCoversTheLongestSleep(t *testing.T) {
	for _, name := range []string{"sleep", "sleep_ms"} {
		op := DefaultOps()[name]
		if op.Timeout <= MaxSleep || op.MaxTimeout < op.Timeout {
			t.Errorf("%s: timeout %v / max %v must exceed the longest sleep %v", name, op.Timeout, op.MaxTimeout, MaxSleep)
		}
	}
}
