package steps

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"image"
	"slices"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
)

func TestParseExpect(t *testing.T) {
	doc := mustParse(t, `
- {method: tap_xy, params: [0.375, 0.36], expect: "Clear", expect_timeout: 2.5}
- {tool: input, arguments: {text: hi}, options: {expect: " hi  there ", ignore_error: true}}
- {method: home}
`)
	s := doc.Steps
	if s[0].Expect != "Clear" || s[0].ExpectTimeout != 2500*time.Millisecond || s[0].Action.Options != nil {
		t.Errorf("step 1 %+v %+v", s[0], s[0].Action)
	}
	if s[1].Expect != " hi  there " || s[1].ExpectTimeout != 0 || !s[1].IgnoreError || len(s[1].Arguments) != 1 {
		t.Errorf("step 2 %+v", s[1])
	}
	if s[2].Expect != "" {
		t.Errorf("step 3 %+v", s[2])
	}
	req, err := s[0].Request()
	if err != nil || len(req.GetArguments()) != 2 {
		t.Errorf("expect went out as an argument: %v %v", req.GetArguments(), err)
	}
	for _, c := range []struct{ src, want string }{
		{"- {method: home, expect: 3}\n", "step 1 (line 1, home): options.expect: must be a non-empty text the screen shows after the step, got the number 3"},
		{"- {method: home, options: {expect: [a]}}\n", `step 1 (line 1, home): options.expect: must be a non-empty text the screen shows after the step, got the list ["a"]`},
		{"- {method: home, expect: '  '}\n", `step 1 (line 1, home): options.expect: must be a non-empty text the screen shows after the step, got the string "  "`},
		{"- {method: home, expect: Notes, expect_timeout: '5'}\n",
			`step 1 (line 1, home): options.expect_timeout: must be a number of seconds above 0 and at most 600, got the string "5"`},
		{"- {method: home, expect: Notes, expect_timeout: 0}\n",
			`step 1 (line 1, home): options.expect_timeout: must be a number of seconds above 0 and at most 600, got the number 0`},
		{"- {method: home, expect: Notes, expect_timeout: 5000}\n",
			`step 1 (line 1, home): options.expect_timeout: must be a number of seconds above 0 and at most 600, got the number 5000`},
		{"- {method: home, expect_timeout: 5}\n",
			"step 1 (line 1, home): options.expect_timeout: bounds the wait for expect's text, and the step has no expect: add expect or drop it"},
	} {
		doc, err := Parse([]byte(c.src))
		if err == nil { // an option's fault is listed by the checks after (Requests, NewPlan)
			_, err = doc.Requests()
		}
		if err == nil || err.Error() != c.want {
			t.Errorf("Parse(%q)\n got %v\nwant %s", c.src, err, c.want)
		}
	}
	// Inside a sequence it has no place: the sequence is one step.
	_, err = mustParse(t, "- {method: sequence, params: [{method: home, options: {expect: Notes}}]}\n").Requests()
	if err == nil || !strings.Contains(err.Error(), "options.expect: steers a whole step; it has no place inside a sequence") {
		t.Errorf("expect inside a sequence: %v", err)
	}
}

// watched is a Caller that counts the calls of each tool, keeps get_source's arguments, and
// tells a hook after each answer.
type watched struct {
	Caller
	calls  map[string]int
	source []map[string]any
	after  func(tool string, n int)
}

func (w *watched) CallTool(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	res, err := w.Caller.CallTool(ctx, req)
	if w.calls == nil {
		w.calls = map[string]int{}
	}
	w.calls[req.Params.Name]++
	if req.Params.Name == toolSource {
		w.source = append(w.source, req.GetArguments())
	}
	if w.after != nil {
		w.after(req.Params.Name, w.calls[req.Params.Name])
	}
	return res, err
}

// expect passes when the text is on the screen after the step, and when it shows up a moment
// later: the run reads the screen again until then.
func TestExpectPasses(t *testing.T) {
	f, c, cat := startFarm(t)
	p, err := NewPlan(mustParse(t, `
- {method: home, expect: Notes}
- {method: tap_xy, params: [0.375, 0.36], expect: "Clear", name: open Notes}
- {method: back, expect: "Rate   us?", expect_timeout: 20}
`), cat, Options{Serial: "n1-p1"})
	if err != nil {
		t.Fatal(err)
	}
	phone := f.Phone("n1-p1")
	w := &watched{Caller: c}
	w.after = func(tool string, n int) {
		if tool == toolSource && n == 3 { // the first look after step 3 found no popup: now it opens
			phone.ShowPopup("Rate us?")
		}
	}
	rep := p.Run(t.Context(), w)
	if got := statuses(rep); !slices.Equal(got, []string{"passed", "passed", "passed"}) {
		t.Fatalf("%v\n%+v", got, rep.Steps)
	}
	if w.calls[toolSource] != 4 {
		t.Errorf("get_source ran %d times, want 4: once after steps 1 and 2, twice after step 3", w.calls[toolSource])
	}
	if s := rep.Steps[1]; s.Expect != "Clear" || s.ExpectFailed || s.Arguments["expect"] != nil {
		t.Errorf("step 2 %+v", s)
	}
	if s := rep.Steps[2]; s.Duration < expectPoll {
		t.Errorf("step 3 took %s: it did not wait for the popup", s.Duration)
	}
}

// On a leased device, expect looks with the step's lease, acquire_device's new one included.
func TestExpectOnLeasedDevice(t *testing.T) {
	f, c, cat := startFarm(t)
	p, err := NewPlan(mustParse(t, `
- {method: acquire_device, params: n1-p2, expect: Notes}
- {method: tap_xy, params: [0.375, 0.36], expect: Clear}
- {method: release_device}
`), cat, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := &watched{Caller: c}
	rep := p.Run(t.Context(), w)
	if got := statuses(rep); !slices.Equal(got, []string{"passed", "passed", "passed"}) {
		t.Fatalf("%v\n%+v", got, rep.Steps)
	}
	lease := rep.Steps[1].Arguments["lease"]
	if len(w.source) != 2 || lease == nil {
		t.Fatalf("get_source calls %v, the lease %v", w.source, lease)
	}
	for i, a := range w.source {
		if a["serial"] != "n1-p2" || a["lease"] != lease {
			t.Errorf("get_source after step %d: %v, want serial n1-p2 and lease %v", i+1, a, lease)
		}
	}

	// A lease the file names, taken before the run.
	var held struct{ Lease struct{ Handle string } }
	farmtest.Structured(t, farmtest.MustCall(t, f.Client("holder"), "acquire_device", map[string]any{"serial": "n1-p1"}), &held)
	p, err = NewPlan(mustParse(t, "- {method: home, lease: "+held.Lease.Handle+", expect: Notes}\n"), cat, Options{Serial: "n1-p1"})
	if err != nil {
		t.Fatal(err)
	}
	if rep := p.Run(t.Context(), c); !rep.OK() {
		t.Errorf("%+v", rep.Steps)
	}
}

// expect fails when the text does not show in time, saying what the screen shows; the reports
// say so as of any failure; ignore_error lets the run go on.
func TestExpectFails(t *testing.T) {
	_, c, cat := startFarm(t)
	p, err := NewPlan(mustParse(t, `
name: expect-fails
steps:
- {method: home}
- {method: tap_xy, params: [0.375, 0.36], expect: "Saved", expect_timeout: 0.6, name: open Notes}
- {method: back}
`), cat, Options{Serial: "n1-p1"})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	rep := p.Run(t.Context(), c)
	if got := statuses(rep); !slices.Equal(got, []string{"passed", "failed", "skipped"}) || rep.OK() {
		t.Fatalf("%v\n%+v", got, rep.Steps)
	}
	s := rep.Steps[1]
	want := `expected "Saved" on the screen after step 2 (tap_xy); not there after 0.6 s: the screen shows "12:00"`
	if !strings.HasPrefix(s.Error, want) || !strings.Contains(s.Error, `"Notes", "0 characters"`) ||
		!s.ExpectFailed || s.Expect != "Saved" || !strings.Contains(s.Text, "tapped") {
		t.Errorf("step 2: %+v\nwant an error starting %s", s, want)
	}
	if took := time.Since(t0); s.Duration < 600*time.Millisecond || took > 10*time.Second {
		t.Errorf("step 2 took %s (the run %s): expect_timeout is 0.6 s", s.Duration, took)
	}

	var text, junit, js bytes.Buffer
	if err := rep.WriteText(&text); err != nil || !strings.Contains(text.String(), "FAILED") ||
		!strings.Contains(text.String(), `error: expected "Saved" on the screen after step 2 (tap_xy)`) {
		t.Errorf("text report %v:\n%s", err, text.String())
	}
	if err := rep.WriteJSON(&js); err != nil || !strings.Contains(js.String(), `"expectFailed": true`) || !strings.Contains(js.String(), `"expect": "Saved"`) {
		t.Errorf("JSON report %v:\n%s", err, js.String())
	}
	if err := rep.WriteJUnit(&junit); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []struct {
			Failure *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
			} `xml:"failure"`
		} `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal(junit.Bytes(), &doc); err != nil || len(doc.Cases) != 3 || doc.Cases[1].Failure == nil ||
		doc.Cases[1].Failure.Type != "expect_failed" || !strings.HasPrefix(doc.Cases[1].Failure.Message, `expected "Saved"`) {
		t.Errorf("JUnit %v %+v\n%s", err, doc, junit.String())
	}

	// ignore_error: the failed check is reported, and the run goes on.
	p, err = NewPlan(mustParse(t, "- {method: home, expect: Saved, expect_timeout: 0.3, ignore_error: true}\n- {method: back}\n"), cat, Options{Serial: "n1-p1"})
	if err != nil {
		t.Fatal(err)
	}
	rep = p.Run(t.Context(), c)
	if got := statuses(rep); !slices.Equal(got, []string{"failed(ignored)", "passed"}) || !rep.OK() ||
		!strings.Contains(rep.Steps[0].Error, `expected "Saved" on the screen after step 1 (home); not there after 0.3 s`) {
		t.Errorf("ignore_error: %v %+v", got, rep.Steps)
	}
}

// An interrupted run stops waiting for the text at once.
func TestExpectInterrupted(t *testing.T) {
	_, c, cat := startFarm(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	p, err := NewPlan(mustParse(t, "- {method: home, expect: Saved, expect_timeout: 60}\n- {method: back}\n"), cat, Options{Serial: "n1-p1"})
	if err != nil {
		t.Fatal(err)
	}
	w := &watched{Caller: c, after: func(tool string, n int) {
		if tool == toolSource {
			cancel()
		}
	}}
	t0 := time.Now()
	rep := p.Run(ctx, w)
	if got := statuses(rep); !slices.Equal(got, []string{"failed", "skipped"}) || time.Since(t0) > 30*time.Second ||
		rep.Steps[0].Error != `interrupted while waiting for "Saved" on the screen after step 1 (home) (context canceled)` {
		t.Errorf("%v in %s: %+v", got, time.Since(t0), rep.Steps)
	}
}

// A failed check quotes the first distinct texts, and counts the rest.
func TestDescribeScreen(t *testing.T) {
	var texts []string
	for i := range 20 {
		texts = append(texts, fmt.Sprintf("t%d", i%15), strings.Repeat("x", 50))
	}
	got, _ := describeScreen(texts, nil)
	want := `the screen shows "t0", "` + strings.Repeat("x", 39) + `…", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9", "t10", … (16 texts in all)`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// treeless is a device without a UI tree (no device.SourceDumper): a phone seen only through its
// screen, as an arm rig's is.
type treeless struct{ p *sim.Phone }

func (d treeless) Info() device.Info { return d.p.Info() }
func (d treeless) ScreenSize(ctx context.Context) (device.Size, error) {
	return d.p.ScreenSize(ctx)
}
func (d treeless) Screenshot(ctx context.Context) (image.Image, error) { return d.p.Screenshot(ctx) }
func (d treeless) Tap(ctx context.Context, pt device.Point, hold time.Duration) error {
	return d.p.Tap(ctx, pt, hold)
}

// On a device without a UI tree, expect fails with get_source's own error; on a screen whose
// tree holds no text, it says so.
func TestExpectWithoutUITree(t *testing.T) {
	f, c, cat := startFarm(t)
	f.AddDriver("n1", treeless{sim.New("n1-t1")})
	f.WaitDevices(3, broker.StateOnline)
	p, err := NewPlan(mustParse(t, "- {method: tap_xy, params: [0.5, 0.5], expect: Notes, serial: n1-t1}\n"), cat, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep := p.Run(t.Context(), c)
	s := rep.Steps[0]
	t.Log(s.Error)
	if s.Status != Failed || !s.ExpectFailed ||
		!strings.HasPrefix(s.Error, `expected "Notes" on the screen after step 1 (tap_xy), but get_source could not read the screen of n1-t1: `) ||
		!strings.Contains(s.Error, "UI source") {
		t.Errorf("%+v", s)
	}

	f.Phone("n1-p2").HideTree(true)
	p, err = NewPlan(mustParse(t, "- {method: home, expect: Notes, expect_timeout: 0.2}\n"), cat, Options{Serial: "n1-p2"})
	if err != nil {
		t.Fatal(err)
	}
	rep = p.Run(t.Context(), c)
	if s := rep.Steps[0]; !strings.HasSuffix(s.Error, "not there after 0.2 s: the UI tree holds no text (a game, a canvas or a camera view draws its text as pixels, which expect does not read)") {
		t.Errorf("%+v", s)
	}
}

// A step with expect must act on a device.
func TestPlanExpect(t *testing.T) {
	_, _, cat := startFarm(t)
	_, err := NewPlan(mustParse(t, "- {method: home, expect: Notes}\n- {method: list_leases, expect: Notes}\n"), cat, Options{Serial: "n1-p1"})
	want := "step 2 (line 2, list_leases): options.expect: expect checks a device's screen, and list_leases acts on no device: put expect on a step that does"
	if err == nil || err.Error() != want {
		t.Errorf("NewPlan: %v\nwant %s", err, want)
	}
}
