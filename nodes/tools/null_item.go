package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// nullItem refuses a null item in an array argument of v, a pointer to an argument struct
// ({"tags": [null]}, {"params": [null]}): encoding/json decodes it as the item's zero value,
// which the checks would then blame for being empty ("each tag must be 1 to 64 bytes long")
// or take as a value (0 seconds). Only items that are strings, numbers or booleans are held to
// it: a null object (a sequence's step) is checked as the empty object it decodes to, and a
// pointer or interface item may be null.
func nullItem(raw json.RawMessage, v any) error {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return nil
	}
	for _, sf := range jsonFields(t.Elem()) {
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		val, ok := fields[name]
		elem := sf.Type
		for elem.Kind() == reflect.Pointer {
			elem = elem.Elem()
		}
		if !ok || (elem.Kind() != reflect.Slice && elem.Kind() != reflect.Array) {
			continue
		}
		if elem = elem.Elem(); !scalar(elem.Kind()) {
			continue
		}
		var items []json.RawMessage
		if json.Unmarshal(val, &items) != nil {
			continue
		}
		for i, item := range items {
			if string(item) == "null" {
				return fmt.Errorf("%s[%d] must be %s, got null", name, i, jsonWords(elem))
			}
		}
	}
	return nil
}

// scalar says whether items of kind k are strings, numbers or booleans (not bytes: an array of
// bytes is a json.RawMessage, whatever JSON it holds).
func scalar(k reflect.Kind) bool {
	switch k {
	case reflect.String, reflect.Bool, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}
