package tools

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// recorder is a fakeAbled whose gestures, keys and clipboard are logged in one list.
func recorder() (*fakeAbled, func() []string) {
	d := newAbled()
	var mu sync.Mutex
	var log []string
	add := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		log = append(log, s)
	}
	d.TapFn = func(_ context.Context, p device.Point, h time.Duration) error { add(fmtCall("tap", p, h)); return nil }
	d.DoubleTapFn = func(_ context.Context, p device.Point) error { add(fmtCall("doubletap", p, 0)); return nil }
	d.SwipeFn = func(_ context.Context, from, to device.Point, dur, _ time.Duration) error {
		add(fmtCall("swipe", from, 0) + fmtCall("", to, dur))
		return nil
	}
	d.PressKeyFn = func(_ context.Context, k string) error { add("key " + k); return nil }
	d.SetClipboardFn = func(_ context.Context, s string) error { add("clipboard " + s); return nil }
	d.InputTextFn = func(_ context.Context, s string) error { add("text " + s); return nil }
	return d, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), log...)
	}
}

func fmtCall(what string, p device.Point, d time.Duration) string {
	s := what + " " + itoa(p.X) + "," + itoa(p.Y)
	if d > 0 {
		s += " " + d.String()
	}
	return s
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestSequenceRunsEveryStepInOrder(t *testing.T) {
	d, log := recorder()
	var progress []string
	args := `{"steps":[
		{"tool_name":"tap","args":{"bbox":[0.4,0.4,0.6,0.6]}},
		{"tool_name":"SWIPE","arg":{"bbox":[0.4,0.4,0.6,0.6],"direction":"UP","speed":"fast"}},
		{"tool_name":"send_to_clipboard","arg":"hello"},
		{"tool_name":"long_press","arg":[0,0,0.2,0.1]},
		{"tool_name":"home_screen"}]}`
	out, err := DefaultOps()["sequence"].Run(context.Background(), &Task{Driver: d, Args: []byte(args),
		Progress: func(done, total float64, msg string) { progress = append(progress, msg) }})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"tap 540,1200", "swipe 540,1200 540,869 150ms", "clipboard hello", "tap 108,120 1.2s", "key HOME"}
	if got := log(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("the device got\n%v\nwant\n%v", got, want)
	}
	r := out.Data.(SequenceResult)
	if len(r.Steps) != 5 || r.Steps[1].ToolName != "swipe" || r.Steps[4].Step != 5 || !strings.Contains(r.Steps[1].Message, "swiped up") ||
		!strings.Contains(r.Hint, "peek") || r.Message != "ran all 5 steps" {
		t.Fatalf("result %+v", r)
	}
	if len(progress) != 5 || progress[4] != "step 5 of 5 (home_screen) done" {
		t.Fatalf("progress %q", progress)
	}
}

// The PhysiClaw form: step1 .. step5, each {tool_name, arg}.
func TestSequenceSeedForm(t *testing.T) {
	d, log := recorder()
	mustRun(t, "sequence", d, `{"step1":{"tool_name":"tap","arg":[0,0,0.2,0.1]},"step2":{"tool_name":"double_tap","arg":[0,0,0.2,0.1]},"step3":{"tool_name":"go_back"}}`)
	if got := strings.Join(log(), "|"); got != "tap 108,120|doubletap 108,120|key BACK" {
		t.Fatalf("the device got %s", got)
	}
	a := SequenceArgs{Step1: &SequenceStep{ToolName: "Tap", Arg: json.RawMessage(`[0,0,1,1]`)}}
	if err := a.Check(); err != nil {
		t.Fatal(err)
	}
	if a.Step1 != nil || len(a.Steps) != 1 || a.Steps[0].ToolName != "tap" || string(a.Steps[0].Args) != `{"bbox":[0,0,1,1]}` || a.Steps[0].Arg != nil {
		t.Fatalf("normalized %+v, step %+v args %s", a, a.Steps[0], a.Steps[0].Args)
	}
	if err := a.Check(); err != nil { // idempotent: the gateway checks, then the node again
		t.Fatal(err)
	}
}

// The first failure stops the sequence; earlier steps stay done, later ones never run.
func TestSequenceStopsAtTheFirstFailure(t *testing.T) {
	d, log := recorder()
	taps := 0
	d.TapFn = func(_ context.Context, p device.Point, _ time.Duration) error {
		taps++
		if taps == 2 {
			return errDriver
		}
		return nil
	}
	_, err := runOp(t, "sequence", d, `{"steps":[
		{"tool_name":"home"},
		{"tool_name":"tap_xy","args":{"x":0.1,"y":0.1}},
		{"tool_name":"tap_xy","args":{"x":0.2,"y":0.2}},
		{"tool_name":"input","arg":"never typed"},
		{"tool_name":"back"}]}`)
	wantCode(t, err, broker.CodeDriver)
	for _, want := range []string{"sequence stopped at step 3 of 5 (tap_xy)", "usb cable unplugged", "Steps 1-2 ran and are not undone",
		"[1 home: pressed HOME]", "[2 tap_xy: tapped at (0.100, 0.100)", "the remaining 2 (input, back) did not run", "peek"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if got := strings.Join(log(), "|"); got != "key HOME" || taps != 2 {
		t.Fatalf("the device got %q and %d taps", got, taps)
	}

	// Bad input found only on the device after a step ran keeps its code, the caller's mistake
	// (not the device's failure, which driver_error would count against it); the message says
	// what ran.
	d, _ = recorder()
	_, err = runOp(t, "sequence", d, `{"steps":[{"tool_name":"home"},{"tool_name":"tap_abs_xy","args":{"x":5000,"y":1}}]}`)
	wantCode(t, err, broker.CodeBadInput)
	if !strings.Contains(err.Error(), "Step 1 ran and is not undone") || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("%v", err)
	}
	// A first step that cannot run keeps its code: nothing ran.
	_, err = runOp(t, "sequence", newFake(), `{"steps":[{"tool_name":"double_tap","arg":[0,0,1,1]},{"tool_name":"tap","arg":[0,0,1,1]}]}`)
	wantCode(t, err, broker.CodeUnsupported)
	if !strings.Contains(err.Error(), "Nothing ran") {
		t.Fatalf("%v", err)
	}
}

// A step the device cannot do is found before any step runs, and every such step is named
// (an arm taps but cannot type; its first step must not run).
func TestSequenceChecksEveryStepsAbilityFirst(t *testing.T) {
	d := newFake() // taps only
	_, err := runOp(t, "sequence", d, `{"step1":{"tool_name":"tap","arg":[0.1,0.1,0.2,0.2]},"step2":{"tool_name":"input","args":{"text":"x"}},`+
		`"step3":{"tool_name":"tap_xy","args":{"x":0.5,"y":0.5}},"step4":{"tool_name":"send_to_clipboard","arg":"y"}}`)
	wantCode(t, err, broker.CodeUnsupported)
	for _, want := range []string{"step 2 (input) cannot type text", "step 4 (send_to_clipboard) cannot set its clipboard", "Nothing ran"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "step 1") || strings.Contains(err.Error(), "step 3") {
		t.Errorf("error %q names a step the device can do", err)
	}
	if calls := d.Calls(); len(calls) != 0 {
		t.Fatalf("the device got %v before the sequence was refused", calls)
	}
}

// Every step is checked before any runs: a bad step anywhere changes nothing.
func TestSequenceBadInputRunsNothing(t *testing.T) {
	for args, want := range map[string]string{
		`{}`:           "steps is required",
		`{"steps":[]}`: "steps is required",
		`{"steps":[{"tool_name":"home"},{"tool_name":"home"},{"tool_name":"home"},{"tool_name":"home"},{"tool_name":"home"},{"tool_name":"home"}]}`: "at most 5 steps",
		`{"steps":[{"tool_name":"home"},{"tool_name":"tap","args":{"bbox":[0.5,0,0.1,1]}}]}`:                                                        "step 2: tap: bbox must have left < right",
		`{"steps":[{"tool_name":"home"},{"tool_name":"fly"}]}`:                                                                                      `step 2: tool_name "fly" cannot run in a sequence`,
		`{"steps":[{"tool_name":"force_quit"}]}`:                                                                                                    "cannot run in a sequence; step tools are",
		`{"steps":[{"tool_name":"sequence","args":{}}]}`:                                                                                            "cannot run in a sequence",
		`{"steps":[{"tool_name":"peek"}]}`:                                                                                                          "cannot run in a sequence",
		`{"steps":[{"tool_name":""}]}`:                                                                                                              "tool_name is required",
		`{"steps":[{"args":{}}]}`:                                                                                                                   "tool_name is required",
		`{"steps":[{"tool_name":"tap","args":{"bbox":[0,0,1,1]},"arg":[0,0,1,1]}]}`:                                                                 "not both",
		`{"steps":[{"tool_name":"tap","arg":"x"}]}`:                                                                                                 "arg must be the bbox",
		`{"steps":[{"tool_name":"swipe","arg":[0,0,1,1]}]}`:                                                                                         "arg must be an object of swipe's arguments",
		`{"steps":[{"tool_name":"send_to_clipboard","arg":5}]}`:                                                                                     "arg must be the text",
		`{"steps":[{"tool_name":"tap","args":5}]}`:                                                                                                  "args must be an object",
		`{"steps":[{"tool_name":"tap_xy","args":{"x":"a","y":0}}]}`:                                                                                 "step 1: tap_xy: x must be a number, got a string",
		`{"steps":[{"tool_name":"tap_xy","args":{"x":0,"y":0,"z":1}}]}`:                                                                             `step 1: tap_xy: unknown argument "z"`,
		`{"steps":[{"tool_name":"home","args":{"button":"HOME"}}]}`:                                                                                 `unknown argument "button"`,
		`{"steps":[{"tool_name":"swipe","args":{"bbox":[0,0,1,1]}}]}`:                                                                               "needs direction",
		`{"steps":[{"tool_name":"tap"}]}`:                                                                                                           "bbox is required",
		`{"step2":{"tool_name":"home"}}`:                                                                                                            "step2 is given but step1 is not",
		`{"step1":{"tool_name":"home"},"step3":{"tool_name":"home"}}`:                                                                               "step3 is given but step2 is not",
		`{"steps":[{"tool_name":"home"}],"step1":{"tool_name":"home"}}`:                                                                             "not both",
		`{"steps":[{"tool_name":"home","extra":1}]}`:                                                                                                "unknown field",
		`{"steps":{"tool_name":"home"}}`:                                                                                                            "cannot unmarshal",
	} {
		d, log := recorder()
		_, err := runOp(t, "sequence", d, args)
		wantCode(t, err, broker.CodeBadInput)
		if !strings.Contains(err.Error(), want) {
			t.Errorf("sequence %s: %v; want it to mention %q", args, err, want)
		}
		if strings.Contains(err.Error(), "step") && strings.Contains(err.Error(), "json: unknown field") {
			t.Errorf("a step's error keeps encoding/json's words: %v", err)
		}
		if len(log()) != 0 || len(d.Calls()) != 0 {
			t.Errorf("sequence %s reached the driver: %v", args, d.Calls())
		}
	}
}

func TestSequenceToolsAreActions(t *testing.T) {
	ops := DefaultOps()
	for _, name := range SequenceTools() {
		if _, ok := ops[name]; !ok {
			t.Errorf("step tool %s is no op", name)
		}
		for _, not := range []string{"sequence", "peek", "screenshot", "force_quit", "app_uninstall", "app_clear", "app_install", "sleep"} {
			if name == not {
				t.Errorf("%s may run in a sequence", name)
			}
		}
	}
}

// A cancelled sequence stops between steps.
func TestSequenceHonoursCancel(t *testing.T) {
	d, log := recorder()
	ctx, cancel := context.WithCancel(context.Background())
	d.PressKeyFn = func(ctx context.Context, k string) error { cancel(); return nil }
	d.TapFn = func(ctx context.Context, _ device.Point, _ time.Duration) error { return ctx.Err() }
	_, err := DefaultOps()["sequence"].Run(ctx, &Task{Driver: d, Args: []byte(`{"steps":[{"tool_name":"home"},{"tool_name":"tap","arg":[0,0,1,1]}]}`)})
	if err == nil || !strings.Contains(err.Error(), "context canceled") || len(log()) != 0 {
		t.Fatalf("%v, log %v", err, log())
	}
}
