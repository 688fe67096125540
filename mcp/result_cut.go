package mcp

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// cutNoteRoom is what the note of a cut result may take of MaxResultBytes.
const cutNoteRoom = 1 << 10

// resultSize is what MaxResultBytes counts of res: its structured content as JSON plus the
// text of its text items.
func resultSize(res *mcpgo.CallToolResult) int {
	n := len(structuredBytes(res.StructuredContent))
	for _, c := range res.Content {
		if t, ok := mcpgo.AsTextContent(c); ok {
			n += len(t.Text)
		}
	}
	return n
}

// structuredBytes is structured content as JSON (nil for none, or for what cannot be encoded).
func structuredBytes(v any) []byte {
	if v == nil {
		return nil
	}
	if raw, ok := v.(json.RawMessage); ok {
		return raw
	}
	b, _ := json.Marshal(v)
	return b
}

// cutResult cuts res, of size bytes, to MaxResultBytes: the structured content by its longest
// arrays and strings (so that it still matches the tool's output schema), its text mirror to
// match, other texts by their ends; and adds a note that says what was cut and how to ask for
// less. A result that cannot be cut so becomes an error that says as much.
func cutResult(tool string, res *mcpgo.CallToolResult, size int) *mcpgo.CallToolResult {
	budget := MaxResultBytes - cutNoteRoom
	structured := structuredBytes(res.StructuredContent)
	content := slices.Clone(res.Content)
	mirror, others, otherBytes := -1, []int(nil), 0
	for i, c := range content {
		t, ok := mcpgo.AsTextContent(c)
		switch {
		case !ok:
		case mirror < 0 && structured != nil && t.Text == string(structured):
			mirror = i
		default:
			others, otherBytes = append(others, i), otherBytes+len(t.Text)
		}
	}
	out := *res
	var cuts []string
	if structured != nil {
		room := budget - min(otherBytes, budget/3)
		if mirror >= 0 {
			room /= 2
		}
		small, what, ok := shrinkJSON(structured, room)
		if !ok {
			return errorResult(fmt.Sprintf("%s answered %d KB, over the %d KB a tool result may hold, and its answer cannot be cut to fit: "+
				"ask for less (narrower arguments, or another tool that answers in less)", tool, size>>10, MaxResultBytes>>10))
		}
		cuts = what
		out.StructuredContent = json.RawMessage(small)
		budget -= len(small)
		if mirror >= 0 {
			content[mirror] = mcpgo.NewTextContent(string(small))
			budget -= len(small)
		}
	}
	if otherBytes > budget {
		for _, i := range others {
			t, _ := mcpgo.AsTextContent(content[i])
			if c := cutString(t.Text, len(t.Text)*max(0, budget)/otherBytes); c != t.Text {
				content[i] = mcpgo.NewTextContent(c)
				cuts = append(cuts, fmt.Sprintf("a text from %d to %d bytes", len(t.Text), len(c)))
			}
		}
	}
	if len(cuts) > 5 {
		cuts = append(cuts[:5], fmt.Sprintf("%d more", len(cuts)-5))
	}
	note := fmt.Sprintf("This result was cut: %s answered %d KB, over the %d KB a tool result may hold (structured content plus its text). Cut: %s. "+
		"Ask for less: list tools take filters, limit and cursor; task records take includeSteps=false; peek and find_text answer in less than get_source.",
		tool, size>>10, MaxResultBytes>>10, strings.Join(cuts, "; "))
	out.Content = append(content, mcpgo.NewTextContent(shorten(note, cutNoteRoom)))
	return &out
}

// cutString keeps the first n bytes of s or fewer (on a character boundary), marked "…" if cut.
func cutString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(0, n-len("…"))
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// shrinkJSON cuts the JSON value raw to at most budget bytes by cutting whatever array (of two
// items or more) or long string is largest, by the excess or half of it, until it fits. It returns the new encoding and what it cut, or false if it cannot fit.
func shrinkJSON(raw []byte, budget int) ([]byte, []string, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var root any
	if dec.Decode(&root) != nil {
		return nil, nil, false
	}
	var cuts []cutRecord
	for range 64 {
		b, err := json.Marshal(root)
		if err != nil {
			return nil, nil, false
		}
		if len(b) <= budget {
			what := make([]string, len(cuts))
			for i, c := range cuts {
				what[i] = c.String()
			}
			return b, what, true
		}
		var s spot
		jsonSize(root, "", func(v any) { root = v }, &s)
		if s.set == nil {
			return nil, nil, false
		}
		// At most half of it at a time: a value far over the budget on its own must not be cut
		// to nothing because others are over it too; they take their turns as the largest.
		rec := s.cut(min(len(b)-budget, s.size/2))
		if i := slices.IndexFunc(cuts, func(c cutRecord) bool { return c.path == rec.path }); i >= 0 {
			cuts[i].to = rec.to // cut again: keep the first size
		} else {
			cuts = append(cuts, rec)
		}
	}
	return nil, nil, false
}

// spot is the largest cuttable value found in a JSON tree: an array of two items or more, or
// a string of more than minCutString bytes.
type spot struct {
	path string
	size int // encoded
	v    any
	set  func(any)
}

// cut shrinks the value at the spot by about excess encoded bytes.
func (s spot) cut(excess int) cutRecord {
	keep := func(n int) int { return n * max(0, s.size-excess) / s.size }
	switch x := s.v.(type) {
	case []any:
		k := max(1, min(len(x)-1, keep(len(x))))
		s.set(x[:k])
		return cutRecord{path: s.path, unit: "items", from: len(x), to: k}
	case string:
		c := cutString(x, min(len(x)-1, keep(len(x))))
		s.set(c)
		return cutRecord{path: s.path, unit: "bytes", from: len(x), to: len(c)}
	}
	return cutRecord{}
}

// cutRecord is one value cut, for the note.
type cutRecord struct {
	path, unit string
	from, to   int
}

func (c cutRecord) String() string {
	return fmt.Sprintf("%s from %d to %d %s", cmp.Or(c.path, "the result"), c.from, c.to, c.unit)
}

// minCutString is the shortest string worth cutting: shorter ones are names and states.
const minCutString = 16

// jsonSize returns the encoded size of v (as json.Marshal writes it), and records in best the
// largest cuttable value within it; set replaces v in its parent.
func jsonSize(v any, path string, set func(any), best *spot) int {
	n := 0
	switch x := v.(type) {
	case string:
		b, _ := json.Marshal(x)
		if n = len(b); len(x) <= minCutString {
			return n
		}
	case json.Number:
		return len(x)
	case bool:
		return len(strconv.FormatBool(x))
	case nil:
		return len("null")
	case []any:
		n = 1 + max(1, len(x))
		for i := range x {
			n += jsonSize(x[i], path+"["+strconv.Itoa(i)+"]", func(v any) { x[i] = v }, best)
		}
		if len(x) < 2 {
			return n
		}
	case map[string]any:
		n = 1 + max(1, len(x))
		for k := range x {
			kb, _ := json.Marshal(k)
			n += len(kb) + 1 + jsonSize(x[k], strings.TrimPrefix(path+"."+k, "."), func(v any) { x[k] = v }, best)
		}
		return n
	}
	if n > best.size {
		*best = spot{path: path, size: n, v: v, set: set}
	}
	return n
}
