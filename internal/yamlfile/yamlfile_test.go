package yamlfile

import (
	"errors"
	"strings"
	"testing"
	"time"
)

type settings struct {
	Name    string         `yaml:"name"`
	On      bool           `yaml:"on"`
	Count   int            `yaml:"count"`
	Wait    time.Duration  `yaml:"wait"`
	Weight  *float64       `yaml:"weight"`
	Labels  map[string]any `yaml:"labels"`
	Items   []item         `yaml:"items"`
	Tags    []string       `yaml:"tags"`
	skipped int
}

type item struct {
	ID string `yaml:"id"`
}

func TestDecode(t *testing.T) {
	var s settings
	doc := "name: 42\non: true\ncount: 3\nwait: 1m30s\nweight: 0.5\nlabels: {a: [1]}\nbase: &b {id: x}\nitems: [*b, {id: y}]\n"
	if err := Decode([]byte(doc), &s); err == nil || !strings.Contains(err.Error(), `line 7: unknown key "base" (the keys are: name, on, count, wait, weight, labels, items, tags)`) {
		t.Fatalf("unknown key: %v", err)
	}
	doc = strings.Replace(doc, "base: &b {id: x}\nitems: [*b,", "items: [{id: x},", 1)
	if err := Decode([]byte(doc), &s); err != nil {
		t.Fatal(err)
	}
	_ = s.skipped // unexported: no key
	if s.Name != "42" || !s.On || s.Count != 3 || s.Wait != 90*time.Second || *s.Weight != 0.5 || len(s.Items) != 2 || s.Items[1].ID != "y" {
		t.Fatalf("decoded %+v", s)
	}
	for _, c := range []struct{ doc, want string }{
		{"on: yes please\n", `line 1: on: "yes please" is not true or false`},
		{"count: 2.5\n", `line 1: count: "2.5" is not a whole number`},
		{"wait: 90\n", `line 1: wait: "90" is not a duration (like 80ms, 5s or 1m30s)`},
		{"weight: heavy\n", `weight: "heavy" is not a number`},
		{"items: {id: x}\n", "items: a set of keys is not a list"},
		{"items:\n  - idd: x\n", `line 2: unknown key "idd" (the keys are: id)`},
		{"items: [x]\n", `items: "x" is not a set of keys (id)`},
		{"name: [a]\n", "name: a list is not text"},
		{"skipped: 1\n", `unknown key "skipped"`},
		{"tags: [a, ~]\n", "line 1: tags: item 2 is empty (null): write a value or leave the item out"},
		{"tags:\n  -\n", "line 2: tags: item 1 is empty (null)"},
		{"a: [\n", "not valid YAML: line 1: did not find expected node content"},
	} {
		err := Decode([]byte(c.doc), &settings{})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "yamlfile.") {
			t.Errorf("%q: %v, want %q", c.doc, err, c.want)
		}
	}
	if err := Decode([]byte("a: [\n"), &settings{}); !errors.Is(err, ErrSyntax) {
		t.Errorf("a file that is no YAML: %v, want ErrSyntax", err)
	}
	for _, doc := range []string{"", "\n# just a comment\n", "~\n", "---\n"} {
		if err := Decode([]byte(doc), &settings{}); !errors.Is(err, ErrEmpty) {
			t.Errorf("%q: %v, want ErrEmpty", doc, err)
		}
	}
}
