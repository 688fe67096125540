package agent

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// cut shortens s to at most n runes, marking the cut; the model and the progress channel
// get results this way, not whole page dumps.
func cut(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, k := 0, 0
	for i = range s {
		if k == n {
			break
		}
		k++
	}
	return s[:i] + "…"
}

// oneLine folds white space runs (newlines too) into single spaces, for a line of a report.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// jsonArgs returns a model's arguments as valid JSON for the records: compacted when they
// are JSON, else the text as a JSON string, so a Task always marshals.
func jsonArgs(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil && b.Len() > 0 {
		return b.Bytes()
	}
	s, _ := json.Marshal(strings.ToValidUTF8(string(raw), "\uFFFD"))
	return s
}

// isObject says whether raw is a JSON object: the only arguments a tool takes.
func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

// canonical is raw with its object keys sorted and no spaces, so equal arguments written
// differently compare equal.
func canonical(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
