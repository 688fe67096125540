package tools

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// ArgProblem says, in the words of a tool's arguments, what encoding/json found wrong with
// them: "x must be a number, got a string", or for an argument the tool does not take,
// `unknown argument "foo"` with unknown set; for a key of an object inside them, `unknown
// key "foo" in steps[0]; steps[0] takes: ...`, unknown not set. ok is false for any other
// error. The gateway and sequence steps both use it, so an agent reads the same sentence
// either way.
func ArgProblem(err error) (msg string, unknown, ok bool) {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		got, _, _ := strings.Cut(te.Value, " ") // "number 1.5" → "number"
		gotWords := nouns[got]
		if gotWords == "" {
			gotWords = got
		}
		want := jsonWords(te.Type)
		if got == "number" && want == "a whole number" {
			gotWords = "a fraction or a number out of range"
		}
		field := fieldPath(te.Field)
		if field == "" {
			field = "arguments"
		}
		if _, item := errors.AsType[*itemTypeError](err); item {
			field = "each item of " + field
		}
		return field + " must be " + want + ", got " + gotWords, false, true
	}
	if uk, ok := errors.AsType[*unknownKeyError](err); ok { // a key of an object inside them
		return uk.words(), false, true
	}
	if ae, ok := errors.AsType[*advisedArgError](err); ok { // an argument the tool knows a caller may mean
		return "unknown argument " + clip(ae.key) + ": " + ae.advice, true, true
	}
	// encoding/json has no error type for an unknown field, only this text.
	for e := err; e != nil; e = errors.Unwrap(e) {
		if name, found := strings.CutPrefix(e.Error(), "json: unknown field "); found {
			return "unknown argument " + clip(name), true, true
		}
	}
	return "", false, false
}

// itemTypeError is a decoding error about an item of an array argument ({"tags": [1]}), which
// encoding/json names by the array alone, as if the array had to be the item's type.
type itemTypeError struct{ *json.UnmarshalTypeError }

func (e *itemTypeError) Unwrap() error { return e.UnmarshalTypeError }

// inItem marks err, decoding into v, as an itemTypeError when the value of the wrong type is
// an item of an array argument.
func inItem(err error, v any) error {
	te, ok := errors.AsType[*json.UnmarshalTypeError](err)
	if !ok || te.Field == "" {
		return err
	}
	t := reflect.TypeOf(v)
	for _, part := range strings.Split(fieldPath(te.Field), ".") {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return err
		}
		i := slices.IndexFunc(jsonFields(t), func(f reflect.StructField) bool {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			return name == part
		})
		if i < 0 {
			return err
		}
		t = jsonFields(t)[i].Type
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && te.Type != t {
		return &itemTypeError{te}
	}
	return err
}

// fieldPath is a decoding error's field without array indices: Go 1.27 names them ("steps.0"),
// Go 1.26 does not ("steps"); a message must read the same whichever built the node.
func fieldPath(field string) string {
	parts := strings.Split(field, ".")
	out := parts[:0]
	for _, p := range parts {
		if _, err := strconv.Atoi(p); err != nil {
			out = append(out, p)
		}
	}
	return strings.Join(out, ".")
}

// nouns name JSON values, by encoding/json's word for them (UnmarshalTypeError.Value) and by
// JSON Schema's (jsonType).
var nouns = map[string]string{"string": "a string", "number": "a number", "integer": "a whole number",
	"object": "an object", "array": "an array", "bool": "a boolean", "boolean": "a boolean"}

// jsonWords names a Go type as the JSON value it decodes from: "a number", "an array of
// strings", "an object {tool_name, args, arg}".
func jsonWords(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if e := jsonWords(t.Elem()); strings.HasPrefix(e, "a ") || strings.HasPrefix(e, "an ") {
			_, noun, _ := strings.Cut(e, " ")
			return "an array of " + plural(noun)
		}
		return "an array"
	case reflect.Struct:
		var names []string
		for _, f := range jsonFields(t) {
			if slices.Contains(strings.Split(f.Tag.Get("arg"), ","), "unlisted") {
				continue // HttpRunner's general options: not the object's own
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			names = append(names, name)
		}
		if len(names) > 0 {
			return "an object {" + strings.Join(names, ", ") + "}"
		}
	}
	if w := nouns[jsonType(t.Kind())]; w != "" {
		return w
	}
	return "an object"
}

// plural makes a noun phrase plural: its noun is the last word before a field list, so
// "number" → "numbers", "whole number" → "whole numbers", "object {a, b}" → "objects {a, b}".
func plural(noun string) string {
	words, fields, _ := strings.Cut(noun, " {")
	if fields != "" {
		fields = " {" + fields
	}
	return words + "s" + fields
}
