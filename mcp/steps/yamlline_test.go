package steps

import (
	"strings"
	"testing"
)

// A YAML syntax error names the line at fault, not the line of the construct yaml.v3 was in
// (counted from 0): a bad indent on line 4 said "line 2", an unclosed [ on line 5 "line 4".
func TestParseYAMLSyntaxErrorLine(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"serial: s\nsteps:\n  - method: home\n   - method: back\n", "line 4: did not find expected '-' indicator"},
		{"serial: s\nsteps:\n  - method: home\n  - method: back\n  - {method: tap_xy, params: [0.5, 0.5}\n  - method: home\n",
			"line 5: did not find expected ',' or ']'"},
		{"- method: home\n- method: tap\n  params: [1,\n- method: x\n", "line 3: did not find expected node content"},
		{"- method: home\n\t- method: back\n", "line 2: found a tab character that violates indentation"},
		{"a: b: c\n", "line 1: mapping values are not allowed in this context"},
		{"# steps\n\n- method: home\n- method: \"home\n- method: back\n", "line 4: found unexpected end of stream"},
		// A valid flow over several lines before the fault is not taken for it.
		{"- method: tap_xy\n  params: [0.5,\n    0.5]\n- method: home\n - method: back\n", "line 5: did not find expected '-' indicator"},
	} {
		_, err := Parse([]byte(c.src))
		if want := "the steps file is not valid YAML: " + c.want; err == nil || err.Error() != want {
			t.Errorf("Parse(%q)\n got %v\nwant %s", c.src, err, want)
		}
	}
	// A file too long to read again line by line keeps yaml.v3's line, as near one.
	long := strings.Repeat("- method: home\n", maxLineSearch) + "  - method: back\n - x\n"
	if _, err := Parse([]byte(long)); err == nil || !strings.Contains(err.Error(), "the steps file is not valid YAML: near line ") {
		t.Errorf("a long file: %v", err)
	}
}

// JSON is YAML: a JSON file's step errors name their lines as YAML's do, and its values stay
// JSON's.
func TestParseJSONStepLines(t *testing.T) {
	src := "{\n  \"serial\": \"n1-p1\",\n  \"steps\": [\n    {\"method\": \"home\"},\n    {\"method\": \"tap_xy\", \"params\": \"up\"},\n" +
		"    {\"method\": 3}\n  ]\n}\n"
	_, err := Parse([]byte("\n" + src)) // lines count from the file's first, blank or not
	if want := "step 3 (line 7): method: must be a non-empty string, got the number 3"; err == nil || err.Error() != want {
		t.Errorf("Parse\n got %v\nwant %s", err, want)
	}
	doc, err := Parse([]byte("[\n {\"method\": \"home\"},\n {\"method\": \"tap_xy\", \"params\": \"up\"}\n]"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = doc.Requests()
	if want := `step 2 (line 3, tap_xy): params: tap_xy takes`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Requests: %v, want %s…", err, want)
	}
	// A key given twice, which YAML refuses, is JSON's: the last one holds.
	doc, err = Parse([]byte(`[{"method": "home", "method": "back"}]`))
	if err != nil || doc.Steps[0].Method() != "back" || doc.Steps[0].Line != 1 {
		t.Errorf("a key given twice: %+v %v", doc, err)
	}
	// Numbers are JSON's: 1e400 is refused as JSON refuses it, not read as YAML's infinity.
	if _, err := Parse([]byte(`[{"method": "sleep", "params": 1e400}]`)); err == nil || !strings.HasPrefix(err.Error(), "the steps file is not valid JSON: json: cannot unmarshal number 1e400 ") {
		t.Errorf("1e400: %v", err)
	}
}
