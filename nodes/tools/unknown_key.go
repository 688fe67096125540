package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// unknownKeyError is encoding/json's refusal of a key that an object inside the arguments
// does not take ({"steps": [{"tool_name": ..., "bogus": 1}]}), which names the key but not
// where it is: left so, ArgProblem would read it as an argument of the tool.
type unknownKeyError struct {
	err   error    // encoding/json's
	key   string   // as encoding/json quotes it: "\"bogus\""
	at    string   // where the object is: "steps[0]", "step1"
	takes []string // the keys that object takes
}

func (e *unknownKeyError) Error() string { return e.err.Error() }
func (e *unknownKeyError) Unwrap() error { return e.err }

// words is the refusal in the words of the arguments: the key, the object it is in and what
// that object takes.
func (e *unknownKeyError) words() string {
	return fmt.Sprintf("unknown key %s in %s; %s takes: %s", clip(e.key), e.at, e.at, strings.Join(e.takes, ", "))
}

// inObject marks err, from decoding raw into v, as an unknownKeyError when it refuses a key
// of an object inside the arguments; any other error, and a key of the arguments themselves,
// is returned as it is.
func inObject(raw json.RawMessage, err error, v any) error {
	var quoted string
	for e := err; e != nil && quoted == ""; e = errors.Unwrap(e) {
		quoted, _ = strings.CutPrefix(e.Error(), "json: unknown field ")
	}
	key, uerr := strconv.Unquote(quoted)
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if quoted == "" || uerr != nil || t == nil || t.Kind() != reflect.Struct {
		return err
	}
	at, takes, found := findUnknownKey(raw, t, key, "")
	if !found || at == "" {
		return err
	}
	return &unknownKeyError{err: err, key: quoted, at: at, takes: takes}
}

// findUnknownKey looks in raw, an object decoded into struct type t found at path at ("" for
// the arguments), for a key that t does not take: first among its own keys, then in its
// objects, in the order of their keys. It answers where the object holding it is and the
// keys that object takes.
func findUnknownKey(raw json.RawMessage, t reflect.Type, key, at string) (string, []string, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return "", nil, false
	}
	fields := jsonFields(t)
	if _, given := obj[key]; given {
		if _, known := fieldFor(fields, key); !known {
			return at, listedKeys(fields), true
		}
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		f, ok := fieldFor(fields, k)
		if !ok {
			continue
		}
		path := jsonName(f) // as the schema names it, whatever case the key had
		if at != "" {
			path = at + "." + path
		}
		ft := derefType(f.Type)
		if ft.Kind() == reflect.Struct {
			if where, takes, ok := findUnknownKey(obj[k], ft, key, path); ok {
				return where, takes, true
			}
			continue
		}
		if ft.Kind() != reflect.Slice && ft.Kind() != reflect.Array || derefType(ft.Elem()).Kind() != reflect.Struct {
			continue
		}
		var items []json.RawMessage
		if json.Unmarshal(obj[k], &items) != nil {
			continue
		}
		for i, item := range items {
			if where, takes, ok := findUnknownKey(item, derefType(ft.Elem()), key, fmt.Sprintf("%s[%d]", path, i)); ok {
				return where, takes, true
			}
		}
	}
	return "", nil, false
}

// fieldFor is the field a key decodes into, as encoding/json matches it: by name exactly,
// else without case.
func fieldFor(fields []reflect.StructField, key string) (reflect.StructField, bool) {
	i := slices.IndexFunc(fields, func(f reflect.StructField) bool { return jsonName(f) == key })
	if i < 0 {
		i = slices.IndexFunc(fields, func(f reflect.StructField) bool { return strings.EqualFold(jsonName(f), key) })
	}
	if i < 0 {
		return reflect.StructField{}, false
	}
	return fields[i], true
}

// listedKeys are the names of fields, but for HttpRunner's general options (arg:"unlisted").
func listedKeys(fields []reflect.StructField) []string {
	var names []string
	for _, f := range fields {
		if !slices.Contains(strings.Split(f.Tag.Get("arg"), ","), "unlisted") {
			names = append(names, jsonName(f))
		}
	}
	return names
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}
