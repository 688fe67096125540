package steps

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/corral-farm/corral/internal/farmtest"
)

// statuses lists the steps' statuses, ignored failures marked.
func statuses(rep *Report) []string {
	var out []string
	for _, s := range rep.Steps {
		st := string(s.Status)
		if s.Ignored {
			st += "(ignored)"
		}
		out = append(out, st)
	}
	return out
}

// The run calls the real tools in order and stops at the first failure; progress comes as each
// step ends.
func TestRunStopsAtFirstFailure(t *testing.T) {
	f, c, cat := startFarm(t)
	doc := mustParse(t, `
name: stops
steps:
  - method: home
  - {method: tap_xy, params: [0.375, 0.36], name: open Notes}
  - {method: input, params: hello}
  - {method: app_launch, params: com.example.nope}
  - {method: sleep_ms, params: 10}
`)
	var progress []int
	p, err := NewPlan(doc, cat, Options{Serial: "n1-p1", Progress: func(r Result) { progress = append(progress, r.Index) }})
	if err != nil {
		t.Fatal(err)
	}
	rep := p.Run(t.Context(), c)
	if got, want := statuses(rep), []string{"passed", "passed", "passed", "failed", "skipped"}; !slices.Equal(got, want) {
		t.Fatalf("statuses %v, want %v\n%+v", got, want, rep.Steps)
	}
	if !slices.Equal(progress, []int{1, 2, 3, 4, 5}) {
		t.Errorf("progress %v", progress)
	}
	if rep.OK() || rep.Tests != 5 || rep.Passed != 3 || rep.Failed != 1 || rep.Skipped != 0+1 || rep.Name != "stops" || rep.Serial != "n1-p1" {
		t.Errorf("report %+v", rep)
	}
	failed := rep.FirstFailure()
	if failed == nil || failed.Index != 4 || !strings.Contains(failed.Error, "not installed") || failed.Arguments["serial"] != "n1-p1" {
		t.Errorf("first failure %+v", failed)
	}
	if s := rep.Steps[4]; s.Reason != "step 4 (app_launch) failed" || s.Duration != 0 || !s.Started.IsZero() {
		t.Errorf("skipped step %+v", s)
	}
	if s := rep.Steps[1]; s.Name != "open Notes" || s.Duration <= 0 || !strings.Contains(s.Text, "tapped") {
		t.Errorf("step 2 %+v", s)
	}
	if log := f.Phone("n1-p1").InputLog(); !slices.ContainsFunc(log, func(l string) bool { return strings.Contains(l, "hello") }) {
		t.Errorf("the phone's input log %v has no typed text", log)
	}
}

// With --keep-going every step runs; ignore_error lets one step fail without failing the run.
func TestRunKeepGoingAndIgnoreError(t *testing.T) {
	_, c, cat := startFarm(t)
	src := "- {method: home}\n- {method: app_launch, params: com.example.nope}\n- {method: sleep_ms, params: 10}\n"
	p, err := NewPlan(mustParse(t, src), cat, Options{Serial: "n1-p1", KeepGoing: true})
	if err != nil {
		t.Fatal(err)
	}
	rep := p.Run(t.Context(), c)
	if got := statuses(rep); !slices.Equal(got, []string{"passed", "failed", "passed"}) || rep.OK() {
		t.Errorf("keep going: %v, ok %v", got, rep.OK())
	}
	src = "- {method: home}\n- {method: app_launch, params: com.example.nope, ignore_error: true}\n- {method: sleep_ms, params: 10}\n"
	p, err = NewPlan(mustParse(t, src), cat, Options{Serial: "n1-p1"})
	if err != nil {
		t.Fatal(err)
	}
	rep = p.Run(t.Context(), c)
	if got := statuses(rep); !slices.Equal(got, []string{"passed", "failed(ignored)", "passed"}) || !rep.OK() || rep.Ignored != 1 {
		t.Errorf("ignore_error: %v, ok %v, %+v", got, rep.OK(), rep)
	}
}

// A step after acquire_device runs on the leased device with the lease; the run gives back a
// lease its steps left held.
func TestRunUsesAndReleasesLeases(t *testing.T) {
	f, c, cat := startFarm(t)
	doc := mustParse(t, `
- {method: acquire_device, params: n1-p2}
- {method: tap_xy, params: [0.5, 0.5]}
- {method: get_device_status}
- {method: release_device}
- {method: list_leases}
`)
	p, err := NewPlan(doc, cat, Options{}) // no serial: the lease names the device
	if err != nil {
		t.Fatal(err)
	}
	rep := p.Run(t.Context(), c)
	if !rep.OK() {
		t.Fatalf("%v\n%+v", statuses(rep), rep.Steps)
	}
	lease, _ := rep.Steps[1].Arguments["lease"].(string)
	if lease == "" || rep.Steps[1].Arguments["serial"] != "n1-p2" || rep.Steps[3].Arguments["lease"] != lease {
		t.Errorf("the lease did not travel: %v / %v", rep.Steps[1].Arguments, rep.Steps[3].Arguments)
	}
	if !strings.Contains(rep.Steps[2].Text, `"serial":"n1-p2"`) || strings.Contains(rep.Steps[4].Text, "n1-p2") {
		t.Errorf("status %s\nleases %s", rep.Steps[2].Text, rep.Steps[4].Text)
	}

	// A failure skips release_device: the run releases the lease itself.
	doc = mustParse(t, "- {method: acquire_device, params: n1-p2}\n- {method: app_launch, params: com.example.nope}\n- {method: release_device}\n")
	p, err = NewPlan(doc, cat, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep = p.Run(t.Context(), c)
	if got := statuses(rep); !slices.Equal(got, []string{"passed", "failed", "skipped"}) {
		t.Fatalf("%v\n%+v", got, rep.Steps)
	}
	res := farmtest.MustCall(t, f.Client("other"), "list_leases", nil)
	if strings.Contains(farmtest.Text(res), "n1-p2") {
		t.Errorf("the lease is still held after the run: %s", farmtest.Text(res))
	}
}

// Every step the gateway cannot run is an error before anything runs.
func TestPlanErrors(t *testing.T) {
	f, _, cat := startFarm(t)
	doc := mustParse(t, `
- {method: home}
- {method: tap_yx, params: [0.5, 0.5]}
- {method: tap_xy, params: [2, 0.5]}
- {method: swipe, params: sideways}
- {method: home, options: {duration: 1}}
- {method: list_available_devices}
`)
	before := len(f.Phone("n1-p1").InputLog())
	_, err := NewPlan(doc, cat, Options{Serial: "n1-p1"})
	for _, want := range []string{
		`step 2 (line 3, tap_yx): the gateway has no tool "tap_yx" (did you mean "tap_xy"?)`,
		"step 3 (line 4, tap_xy): x must be between 0 and 1, got 2",
		`step 4 (line 5, swipe): direction must be one of up, down, left, right; got "sideways"`,
		`step 5 (line 6, home): unknown argument "duration"; home takes: `,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("NewPlan error\n%v\ndoes not say %s", err, want)
		}
	}
	if n := strings.Count(err.Error(), "\n"); n != 3 {
		t.Errorf("want 4 steps at fault, one per line:\n%v", err)
	}
	if log := f.Phone("n1-p1").InputLog(); len(log) != before {
		t.Errorf("something ran on the phone: %v", log)
	}

	// A device tool with no device, and no acquire_device before it.
	_, err = NewPlan(mustParse(t, "- {method: list_leases}\n- {method: home}\n"), cat, Options{})
	want := "step 2 (line 2, home): no device: pass --serial, set serial in the file or in the step, or put an acquire_device step before this one"
	if err == nil || err.Error() != want {
		t.Errorf("no device: %v", err)
	}
	// The document's serial serves; a step's own serial wins; --serial overrides the document's.
	p, err := NewPlan(mustParse(t, "serial: n1-p2\nplatform: android\nsteps:\n- {method: home}\n- {method: back, serial: n1-p1}\n- {method: list_leases}\n"),
		cat, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := p.calls[0].args; a["serial"] != "n1-p2" || a["platform"] != "android" {
		t.Errorf("step 1 %v", a)
	}
	if a := p.calls[1].args; a["serial"] != "n1-p1" {
		t.Errorf("step 2 %v", a)
	}
	if a := p.calls[2].args; len(a) != 0 {
		t.Errorf("list_leases takes no serial: %v", a)
	}
	p, err = NewPlan(mustParse(t, "serial: n1-p2\nsteps: [{method: home}]\n"), cat, Options{Serial: "n1-p1"})
	if err != nil || p.calls[0].args["serial"] != "n1-p1" || p.Serial != "n1-p1" {
		t.Errorf("--serial: %v %v", p, err)
	}
}

// An interrupted run fails the step it was in and skips the rest.
func TestRunInterrupted(t *testing.T) {
	_, c, cat := startFarm(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	p, err := NewPlan(mustParse(t, "- {method: sleep_ms, params: 1}\n- {method: sleep, params: 30}\n- {method: home}\n"), cat,
		Options{Serial: "n1-p1", KeepGoing: true, Progress: func(r Result) {
			if r.Index == 1 {
				cancel()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	rep := p.Run(ctx, c)
	if got := statuses(rep); !slices.Equal(got, []string{"passed", "failed", "skipped"}) {
		t.Fatalf("%v\n%+v", got, rep.Steps)
	}
	if s := rep.Steps[1]; s.Error != "interrupted before sleep answered (context canceled)" || rep.Steps[2].Reason != "the run was interrupted" {
		t.Errorf("%+v", rep.Steps)
	}
}

// Run lists the tools, plans and runs in one call.
func TestRunOneCall(t *testing.T) {
	_, c, _ := startFarm(t)
	rep, err := Run(t.Context(), c, mustParse(t, "- {method: get_screen_size}\n- {method: screenshot}\n"), Options{Serial: "n1-p1"})
	if err != nil || !rep.OK() {
		t.Fatalf("%v %+v", err, rep)
	}
	if !strings.Contains(rep.Steps[0].Text, "1080") || !strings.Contains(rep.Steps[1].Text, "[image image/jpeg") {
		t.Errorf("%q / %q", rep.Steps[0].Text, rep.Steps[1].Text)
	}
	if _, err := Run(t.Context(), c, mustParse(t, "- {method: nope}\n"), Options{Serial: "n1-p1"}); err == nil {
		t.Error("an unknown method ran")
	}
}
