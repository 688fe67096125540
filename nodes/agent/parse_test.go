package agent

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParsePlan(t *testing.T) {
	for _, c := range []struct {
		args, want, err string
	}{
		{`{"steps":[{"title":"Open Settings","description":"tap it"},{"title":" Open\nWi-Fi "}]}`, "Open Settings|tap it;Open Wi-Fi|", ""},
		{`{"steps":["Open Settings",{"name":"Open Wi-Fi"}]}`, "Open Settings|;Open Wi-Fi|", ""},
		{`{"steps":"[{\"title\":\"Open Settings\"}]"}`, "Open Settings|", ""},
		{`{"steps":[]}`, "", "the plan has no steps: give 1 to 3"},
		{`{"steps":["a","b","c","d"]}`, "", "the plan has 4 steps, at most 3 are allowed"},
		{`{"steps":[{"title":"  "}]}`, "", "step 1 has no title"},
		{`{"steps":[{"title":7}]}`, "", "step 1 is neither an object"},
		{`{"steps":{"title":"x"}}`, "", "steps is not a list"},
		{`{"plan":[]}`, "", "the arguments have no steps"},
		{`[1]`, "", "the arguments are not a JSON object"},
		{`{"steps":[`, "", "the arguments are not a JSON object"},
	} {
		steps, err := parsePlan(json.RawMessage(c.args), 3)
		var got []string
		for _, s := range steps {
			got = append(got, s.title+"|"+s.description)
		}
		if strings.Join(got, ";") != c.want || (err == nil) != (c.err == "") || (err != nil && !strings.HasPrefix(err.Error(), c.err)) {
			t.Errorf("parsePlan(%s) = %q, %v; want %q, %q", c.args, got, err, c.want, c.err)
		}
	}
}

func TestParseStepDone(t *testing.T) {
	for _, c := range []struct {
		args    string
		success bool
		summary string
		err     string
	}{
		{`{"status":"success","summary":" Settings is open "}`, true, "Settings is open", ""},
		{`{"status":"Failed","summary":"no such row"}`, false, "no such row", ""},
		{`{"status":"done"}`, true, "", ""},
		{`{"status":"maybe","summary":"x"}`, false, "", `status must be "success" or "failed", not "maybe"`},
		{`{"summary":"x"}`, false, "", `status must be`},
		{`"success"`, false, "", "the arguments are not a JSON object"},
	} {
		ok, summary, err := parseStepDone(json.RawMessage(c.args))
		if ok != c.success || summary != c.summary || (err == nil) != (c.err == "") || (err != nil && !strings.HasPrefix(err.Error(), c.err)) {
			t.Errorf("parseStepDone(%s) = %v, %q, %v", c.args, ok, summary, err)
		}
	}
	if got, err := parseFinished(json.RawMessage(`{"content":" The note says hi "}`)); got != "The note says hi" || err != nil {
		t.Errorf("parseFinished: %q, %v", got, err)
	}
	if _, err := parseFinished(json.RawMessage(`{"content":1}`)); err == nil {
		t.Error("parseFinished took a number")
	}
}

func TestNewLabel(t *testing.T) {
	before := "e1 [text] \"12:00\" [0.044,0.000,0.278,0.042] 1.00\ne2 [button] \"Settings\" [0.000,0.292,0.250,0.429] 1.00"
	after := "e1 [text] \"12:00\" [0.044,0.000,0.278,0.042] 1.00\n" +
		"e2 [button] \"" + strings.Repeat("long ", 20) + "\" [0,0,1,1] 1.00\n" +
		"not a listing line\n" +
		"e3 [text] \"Wi-Fi \\\"5G\\\"\" [0,0.1,1,0.2] 1.00\ne4 [text] \"Bluetooth\" [0,0.2,1,0.3] 1.00"
	if got := newLabel(before, after); got != `Wi-Fi "5G"` {
		t.Errorf("newLabel = %q", got)
	}
	if got := newLabel(after, after); got != "" {
		t.Errorf("newLabel of the same screen = %q", got)
	}
}

func TestCutAndCode(t *testing.T) {
	if got := cut("héllo wörld", 5); got != "héllo…" {
		t.Errorf("cut = %q", got)
	}
	if got := cut("short", 5); got != "short" {
		t.Errorf("cut = %q", got)
	}
	if got := code("a``b"); got != "``` a``b ```" {
		t.Errorf("code = %q", got)
	}
	if got := string(jsonArgs(json.RawMessage(`{ "a" : 1 }`))); got != `{"a":1}` {
		t.Errorf("jsonArgs = %s", got)
	}
	if got := canonical(json.RawMessage(`{"y":1, "x":2}`)); got != `{"x":2,"y":1}` {
		t.Errorf("canonical = %s", got)
	}
}

func TestPruneKeepsTheLatest(t *testing.T) {
	c := newConversation("system", 2)
	for i := 0; i < 4; i++ {
		c.screen("screen", Observation{JPEG: []byte{byte(i)}, Elements: "e1 [text] \"x\" [0,0,1,1] 1.00"})
		c.user("between")
	}
	var kept []byte
	notes := 0
	for _, m := range c.msgs {
		for _, img := range m.Images {
			kept = append(kept, img.Data...)
		}
		if strings.Contains(m.Text, imageNote) {
			notes++
		}
	}
	if string(kept) != "\x02\x03" || notes != 2 {
		t.Errorf("kept images %v with %d notes, want the last two and 2 notes", kept, notes)
	}
}

// The model's arguments are whatever it wrote: nothing in them may panic a parser, and what
// a parser accepts is within bounds.
func FuzzParsePlan(f *testing.F) {
	for _, s := range []string{`{"steps":[{"title":"a","description":"b"}]}`, `{"steps":"[\"a\"]"}`, `{"steps":[null]}`, `{}`, `[`} {
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, args []byte, maxSteps int) {
		maxSteps = max(1, min(maxSteps, 20))
		steps, err := parsePlan(args, maxSteps)
		if err != nil {
			return
		}
		if len(steps) < 1 || len(steps) > maxSteps {
			t.Fatalf("%d steps accepted, at most %d", len(steps), maxSteps)
		}
		for _, s := range steps {
			if s.title == "" || !utf8.ValidString(s.title) || !utf8.ValidString(s.description) ||
				utf8.RuneCountInString(s.title) > maxTitleRunes+1 || utf8.RuneCountInString(s.description) > maxDescRunes+1 {
				t.Fatalf("step %+v out of bounds", s)
			}
		}
	})
}

func FuzzParseStepDone(f *testing.F) {
	for _, s := range []string{`{"status":"success","summary":"ok"}`, `{"status":"failed"}`, `{"content":"x"}`, `null`, `"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		if _, summary, err := parseStepDone(args); err == nil && (!utf8.ValidString(summary) || utf8.RuneCountInString(summary) > maxSummaryRunes+1) {
			t.Fatalf("summary out of bounds: %q", summary)
		}
		if content, err := parseFinished(args); err == nil && (!utf8.ValidString(content) || utf8.RuneCountInString(content) > maxSummaryRunes+1) {
			t.Fatalf("content out of bounds: %q", content)
		}
		if !json.Valid(jsonArgs(args)) {
			t.Fatalf("jsonArgs(%q) is not JSON", args)
		}
	})
}

func FuzzLabels(f *testing.F) {
	f.Add("e1 [text] \"12:00\" [0,0,1,1] 1.00\ne2 [button] \"a\\\"b\" [0,0,1,1] 1.00", "e1 [text] \"x\" [0,0,1,1] 1.00")
	f.Add("] \"", "] \"\\")
	f.Fuzz(func(t *testing.T, before, after string) {
		l := newLabel(before, after)
		if l != "" && (strings.TrimSpace(l) != l || utf8.RuneCountInString(l) > maxExpectRunes) {
			t.Fatalf("label %q", l)
		}
	})
}
