package tools

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

// sleep and sleep_ms say one unit in the singular: sleep of 1 answered "slept 1 seconds".
func TestSleepMessageGrammar(t *testing.T) {
	for _, c := range []struct{ tool, args, want string }{
		{"sleep", `{"seconds":1}`, "slept 1 second"},
		{"sleep", `{"seconds":0.01}`, "slept 0.01 seconds"},
		{"sleep_ms", `{"milliseconds":1}`, "slept 1 millisecond"},
		{"sleep_ms", `{"milliseconds":20}`, "slept 20 milliseconds"},
	} {
		if msg, _ := mustRun(t, c.tool, newAbled(), c.args)["message"].(string); msg != c.want {
			t.Errorf("%s %s: %q, want %q", c.tool, c.args, msg, c.want)
		}
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
