package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
)

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
