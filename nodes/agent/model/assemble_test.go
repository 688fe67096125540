package model

import (
	"encoding/json"
	"reflect"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

func delta(index *int, id, name, args string) openai.ToolCall {
	return openai.ToolCall{Index: index, ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}
}

func idx(i int) *int { return &i }

func TestAssembleInterleaved(t *testing.T) {
	var a callAssembler
	for _, d := range []openai.ToolCall{
		delta(idx(1), "call_b", "swipe", ""),
		delta(idx(0), "call_a", "tap", `{"x":`),
		delta(idx(1), "", "", `{"dir":"up"}`),
		delta(idx(0), "call_a", "tap", `0.5}`), // a server that repeats the ID and name
	} {
		a.add(d)
	}
	want := []ToolCall{
		{ID: "call_a", Name: "tap", Arguments: json.RawMessage(`{"x":0.5}`)},
		{ID: "call_b", Name: "swipe", Arguments: json.RawMessage(`{"dir":"up"}`)},
	}
	if got := a.done(); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %s, want %s", show(got), show(want))
	}
}

// TestAssembleWithoutIndex covers servers that send whole calls with no index.
func TestAssembleWithoutIndex(t *testing.T) {
	var a callAssembler
	for _, d := range []openai.ToolCall{
		delta(nil, "c1", "tap", `{"x":1}`),
		delta(nil, "c2", "home_screen", ""),
		delta(nil, "", "", ""), // continues c2 with nothing
	} {
		a.add(d)
	}
	want := []ToolCall{
		{ID: "c1", Name: "tap", Arguments: json.RawMessage(`{"x":1}`)},
		{ID: "c2", Name: "home_screen", Arguments: json.RawMessage(`{}`)},
	}
	if got := a.done(); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %s, want %s", show(got), show(want))
	}
	var empty callAssembler
	if got := empty.done(); got != nil {
		t.Fatalf("no deltas gave %v", got)
	}
}

// FuzzAssemble splits two calls' arguments at fuzzed points, interleaves the pieces, and
// checks the calls come back whole and in index order.
func FuzzAssemble(f *testing.F) {
	f.Add(`{"x":0.5,"y":0.25}`, `{"text":"héllo"}`, []byte{3, 1, 4, 1, 5})
	f.Add("", "not json at all", []byte{})
	f.Add(`{"a":"日本語"}`, `{}`, []byte{0, 0, 200, 7})
	f.Fuzz(func(t *testing.T, args0, args1 string, cuts []byte) {
		pieces := [2][]string{split(args0, cuts), split(args1, cuts[min(1, len(cuts)):])}
		var a callAssembler
		// Call 1 starts first, as an out-of-order server might send it.
		a.add(delta(idx(1), "id1", "second", ""))
		a.add(delta(idx(0), "id0", "first", ""))
		for i := 0; i < max(len(pieces[0]), len(pieces[1])); i++ {
			for c := range 2 {
				if i < len(pieces[c]) {
					a.add(delta(idx(c), "", "", pieces[c][i]))
				}
			}
		}
		got := a.done()
		if len(got) != 2 || got[0].ID != "id0" || got[0].Name != "first" || got[1].ID != "id1" || got[1].Name != "second" {
			t.Fatalf("calls = %s", show(got))
		}
		for c, want := range []string{args0, args1} {
			if want == "" {
				want = "{}"
			}
			if string(got[c].Arguments) != want {
				t.Fatalf("call %d arguments = %q, want %q", c, got[c].Arguments, want)
			}
		}
	})
}

// split cuts s at the byte offsets cuts gives (each taken modulo what is left).
func split(s string, cuts []byte) []string {
	var out []string
	for _, c := range cuts {
		if s == "" {
			break
		}
		n := int(c) % (len(s) + 1)
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

func show(calls []ToolCall) string {
	b, _ := json.Marshal(calls)
	return string(b)
}
