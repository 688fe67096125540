package tools

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/stretchr/testify/require"
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

// A short sleep reports about every tenth of it, 100 ms apart at least.
func TestSleepForReportsEveryTick(t *testing.T) {
	var mu sync.Mutex
	var done []float64
	err := sleepFor(context.Background(), 450*time.Millisecond, func(d, total float64, msg string) {
		mu.Lock()
		defer mu.Unlock()
		if total != 0.45 || msg == "" {
			t.Errorf("progress total %v msg %q", total, msg)
		}
		done = append(done, d)
	})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(done) < 3 || len(done) > 6 {
		t.Fatalf("want 3 to 6 progress reports (every 100 ms, and the end), got %v", done)
	}
	for i := 1; i < len(done); i++ {
		if done[i] <= done[i-1] || done[i] > 0.45 {
			t.Fatalf("progress does not increase within the total: %v", done)
		}
	}
}

// A sleep whose tick falls due with its end (120 ms: one tick of 120 ms) reports its end once:
// MCP progress must increase with every notification.
func TestSleepForEndsWithOneReportOfTheTotal(t *testing.T) {
	for range 30 {
		var done []float64 // sleepFor calls back from the calling goroutine
		require.NoError(t, sleepFor(context.Background(), 120*time.Millisecond, func(d, _ float64, _ string) {
			done = append(done, d)
		}))
		require.NotEmpty(t, done)
		require.Equal(t, 0.12, done[len(done)-1], "the last report is the total")
		for i := 1; i < len(done); i++ {
			require.Greater(t, done[i], done[i-1], "progress must increase: %v", done)
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

func TestSleepRandom(t *testing.T) {
	for _, c := range []struct {
		params   string
		min, max float64
	}{
		{`[0.01]`, 0.01, 0.01},
		{`[0.001,0.02]`, 0.001, 0.02},
		{`[0,0]`, 0, 0},
		{`[0.001,0.002,1,0.01,0.02,0]`, 0.001, 0.002}, // the second range has no weight
		{`[0.001,0.002,1,0.003,0.004,3]`, 0.001, 0.004},
	} {
		out, err := DefaultOps()["sleep_random"].Run(context.Background(), &Task{Driver: newFake(), Args: []byte(`{"params":` + c.params + `}`)})
		if err != nil {
			t.Fatalf("%s: %v", c.params, err)
		}
		r := out.Data.(SleepRandomResult)
		if r.ActualDuration < c.min || r.ActualDuration > c.max || len(r.Params) == 0 || r.Message == "" {
			t.Errorf("params %s: slept %v, want within [%v, %v]; result %+v", c.params, r.ActualDuration, c.min, c.max, r)
		}
	}
}

// pick follows HttpRunner: [s] is s, [min, max] uniform, and triples pick a range by weight.
func TestSleepRandomPick(t *testing.T) {
	seq := func(vs ...float64) func() float64 {
		return func() float64 { v := vs[0]; vs = vs[1:]; return v }
	}
	for _, c := range []struct {
		params []float64
		r      []float64
		want   float64
	}{
		{[]float64{3}, nil, 3},
		{[]float64{1, 3}, []float64{0.5}, 2},
		{[]float64{1, 3}, []float64{0}, 1},
		{[]float64{1, 2, 1, 10, 20, 3}, []float64{0.2, 0.5}, 1.5},  // 0.2×4 = 0.8 < 1: the first range
		{[]float64{1, 2, 1, 10, 20, 3}, []float64{0.3, 0.5}, 15},   // 1.2 ≥ 1: the second
		{[]float64{1, 2, 0, 10, 20, 3}, []float64{0, 0}, 10},       // a zero weight is never picked
		{[]float64{1, 2, 1, 10, 20, 0}, []float64{0.9999, 1}, 2},   // nor a trailing one
		{[]float64{1, 2, 1, 10, 20, 1}, []float64{0.99999, 0}, 10}, // the last range with weight
	} {
		a := SleepRandomArgs{Params: c.params}
		if err := a.Check(); err != nil {
			t.Fatalf("%v: %v", c.params, err)
		}
		if got := a.pick(seq(c.r...)); got != c.want {
			t.Errorf("pick(%v, r=%v) = %v, want %v", c.params, c.r, got, c.want)
		}
	}
}

func TestSleepRandomBadInput(t *testing.T) {
	for args, want := range map[string]string{
		`{}`:                         "params is required",
		`{"params":[]}`:              "params is required",
		`{"params":[1,2,3,4]}`:       "4 numbers",
		`{"params":[2,1]}`:           "min <= max",
		`{"params":[-1]}`:            "between 0 and 3600",
		`{"params":[1,3601]}`:        "between 0 and 3600",
		`{"params":[1,2,0,3,4,0]}`:   "weights",
		`{"params":[3,2,1]}`:         "range 1",
		`{"params":"1,2"}`:           "cannot unmarshal",
		`{"params":[1],"seconds":1}`: "unknown field",
		`{"params":[1,2,1,1,2,1,1,2,1,1,2,1,1,2,1,1,2,1,1,2,1,1,2,1,1,2,1,1,2,1,1,2,1]}`: "at most 30",
	} {
		_, err := runOp(t, "sleep_random", newFake(), args)
		wantCode(t, err, broker.CodeBadInput)
		if !strings.Contains(err.Error(), want) {
			t.Errorf("sleep_random %s: %v; want it to mention %q", args, err, want)
		}
	}
	op := DefaultOps()["sleep_random"]
	if op.Timeout <= MaxSleep {
		t.Errorf("sleep_random's timeout %v must exceed the longest sleep", op.Timeout)
	}
}
