package tools

import (
	"reflect"
	"strings"
)

// withBehaviourFields is result type r with BehaviourResult's fields after its own, as behave
// adds them to the results of a tool taking the behaviour parameters: the type the tool's output
// schema is made from. Embedded structs are inlined, as encoding/json promotes their fields;
// unexported fields, which it leaves out, are left out. A type that is no struct stays as it is.
func withBehaviourFields(r reflect.Type) reflect.Type {
	if r.Kind() != reflect.Struct {
		return r
	}
	var fields []reflect.StructField
	taken := map[string]bool{}
	add := func(fs []reflect.StructField) {
		for _, f := range fs {
			if !taken[f.Name] && !taken["json:"+jsonKey(f)] {
				taken[f.Name], taken["json:"+jsonKey(f)] = true, true
				fields = append(fields, f)
			}
		}
	}
	add(schemaFields(r))
	add(schemaFields(reflect.TypeFor[BehaviourResult]()))
	return reflect.StructOf(fields)
}

// schemaFields are the fields encoding/json writes of struct type t, embedded structs inlined,
// ready for reflect.StructOf; the outer of two alike wins, as encoding/json has it.
func schemaFields(t reflect.Type) []reflect.StructField {
	var own, inner []reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case f.Anonymous && f.Tag.Get("json") == "" && ft.Kind() == reflect.Struct:
			inner = append(inner, schemaFields(ft)...)
			continue
		case !f.IsExported() || f.Tag.Get("json") == "-":
			continue
		}
		f.Anonymous, f.Index, f.Offset = false, nil, 0
		own = append(own, f)
	}
	seen := map[string]bool{}
	for _, f := range own {
		seen[f.Name], seen["json:"+jsonKey(f)] = true, true
	}
	for _, f := range inner {
		if !seen[f.Name] && !seen["json:"+jsonKey(f)] {
			seen[f.Name], seen["json:"+jsonKey(f)] = true, true
			own = append(own, f)
		}
	}
	return own
}

// jsonKey is the key encoding/json writes field f under.
func jsonKey(f reflect.StructField) string {
	if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" {
		return name
	}
	return f.Name
}
