package tools

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// An argument struct declares each argument once, in its field's tags; InputSchema makes the
// tool's input schema from them and DecodeArgs checks them, so the two cannot disagree:
//
//	X *float64 `json:"x" arg:"required,min=0,max=1" desc:"X coordinate (0.0-1.0)" unit:"(relative to the screen)"`
//
//   - json: the argument's name.
//   - desc: its description in the schema (a few words).
//   - arg: its limits, comma-separated: required; min=, max= (numbers); minLength=, maxLength=
//     (strings, in bytes); minItems=, maxItems=, itemMin=, itemMax= (arrays of numbers);
//     enum=a|b|c (strings, taken without case or surrounding space and set to the listed
//     spelling: enum_values.go); unlisted: taken and checked but left out of the schema
//     (HttpRunner's general options, seedopts.go).
//   - pattern: a regular expression a non-empty string must match.
//   - unit, help, hint: words for the checks' messages. "x must be between 0 and 1 {unit}, got 2;
//     {hint}", "x is required: {help}".
//
// A required argument is absent when it is null, an empty or blank string, an empty array (but
// for a tuple of two or more items, whose count is then wrong), or
// a zero number or false in a field that is not a pointer (make a field whose zero is a value a
// pointer); an optional one that is absent is not checked. An optional string with a pattern
// that is given blank (" ") is refused as blank: no blank matches it, so it is a mistake.
// Rules across fields, and rules no tag can say, stay in the struct's Check method, which
// DecodeArgs calls after these checks. A struct with a
// schema no tag can say (a nested object, a computed enum) implements schemaPatcher.

// argField is one argument of an argument struct, as its tags declare it.
type argField struct {
	index                []int
	name                 string
	kind                 reflect.Kind // of the field's type, pointers and slices looked through
	array                bool
	pointer              bool // a zero value is given, not absent
	required             bool
	min, max             *float64
	minLength, maxLength *int
	minItems, maxItems   *int
	itemMin, itemMax     *float64
	enum                 []string
	pattern              *regexp.Regexp
	desc, unit, help     string
	hint                 string
	unlisted             bool // not in the input schema
}

// schemaPatcher is an argument struct that finishes its own schema: its properties, as the
// tags made them, by name.
type schemaPatcher interface {
	patchSchema(props map[string]map[string]any)
}

var argFieldsCache sync.Map // reflect.Type → []argField

// argFields returns the arguments of struct type t; it panics on a malformed tag, which a test
// of All catches.
func argFields(t reflect.Type) []argField {
	if f, ok := argFieldsCache.Load(t); ok {
		return f.([]argField)
	}
	var fields []argField
	for _, sf := range jsonFields(t) {
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		f := argField{index: sf.Index, name: name, desc: sf.Tag.Get("desc"), unit: sf.Tag.Get("unit"),
			help: sf.Tag.Get("help"), hint: sf.Tag.Get("hint")}
		ft := sf.Type
		f.pointer = ft.Kind() == reflect.Pointer
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.Uint8 {
			f.array, ft = true, ft.Elem()
		}
		f.kind = ft.Kind()
		if p := sf.Tag.Get("pattern"); p != "" {
			f.pattern = regexp.MustCompile(p)
		}
		for _, opt := range strings.Split(sf.Tag.Get("arg"), ",") {
			key, val, _ := strings.Cut(strings.TrimSpace(opt), "=")
			switch key {
			case "":
			case "required":
				f.required = true
			case "unlisted":
				f.unlisted = true
			case "min":
				f.min = mustFloat(t, name, val)
			case "max":
				f.max = mustFloat(t, name, val)
			case "itemMin":
				f.itemMin = mustFloat(t, name, val)
			case "itemMax":
				f.itemMax = mustFloat(t, name, val)
			case "minLength":
				f.minLength = mustInt(t, name, val)
			case "maxLength":
				f.maxLength = mustInt(t, name, val)
			case "minItems":
				f.minItems = mustInt(t, name, val)
			case "maxItems":
				f.maxItems = mustInt(t, name, val)
			case "enum":
				f.enum = strings.Split(val, "|")
			default:
				panic(fmt.Sprintf("%s.%s: unknown arg tag %q", t, name, key))
			}
		}
		fields = append(fields, f)
	}
	argFieldsCache.Store(t, fields)
	return fields
}

// jsonFields are the fields of struct type t that JSON names, those of embedded structs (an
// action's Behaviour) in their place, as encoding/json promotes them; each Index leads from t.
// A name given at two depths is the shallower field's, as encoding/json has it: a tool's own
// regex hides Behaviour's.
func jsonFields(t reflect.Type) []reflect.StructField {
	all := promoted(t)
	depth := map[string]int{}
	for _, f := range all {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if d, ok := depth[name]; !ok || len(f.Index) < d {
			depth[name] = len(f.Index)
		}
	}
	out := all[:0:0]
	for _, f := range all {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if len(f.Index) == depth[name] {
			out = append(out, f)
		}
	}
	return out
}

// promoted are the JSON-named fields of t and of its embedded structs, at every depth.
func promoted(t reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		switch {
		case sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct:
			for _, inner := range promoted(sf.Type) {
				inner.Index = append([]int{i}, inner.Index...)
				out = append(out, inner)
			}
		case name != "" && name != "-" && sf.IsExported():
			out = append(out, sf)
		}
	}
	return out
}

func mustFloat(t reflect.Type, name, s string) *float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic(fmt.Sprintf("%s.%s: arg tag: %v", t, name, err))
	}
	return &v
}

func mustInt(t reflect.Type, name, s string) *int {
	v, err := strconv.Atoi(s)
	if err != nil {
		panic(fmt.Sprintf("%s.%s: arg tag: %v", t, name, err))
	}
	return &v
}

// jsonType is the JSON Schema type of a Go kind.
func jsonType(k reflect.Kind) string {
	switch k {
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Struct, reflect.Map:
		return "object"
	}
	return ""
}

// InputSchema returns the properties of argument struct t as JSON Schema, by name, and the
// names of the required ones in field order.
func InputSchema(t reflect.Type) (props map[string]map[string]any, required []string) {
	props = map[string]map[string]any{}
	for _, f := range argFields(t) {
		if f.unlisted {
			continue
		}
		p := map[string]any{}
		typ := jsonType(f.kind)
		if f.array {
			p["type"] = "array"
			if f.minItems != nil {
				p["minItems"] = *f.minItems
			}
			if f.maxItems != nil {
				p["maxItems"] = *f.maxItems
			}
			if typ != "" {
				item := map[string]any{"type": typ}
				if f.itemMin != nil {
					item["minimum"] = *f.itemMin
				}
				if f.itemMax != nil {
					item["maximum"] = *f.itemMax
				}
				p["items"] = item
			}
		} else if typ != "" {
			p["type"] = typ
			if typ == "object" {
				p["properties"] = map[string]any{}
			}
		}
		if f.min != nil {
			p["minimum"] = *f.min
		}
		if f.max != nil {
			p["maximum"] = *f.max
		}
		if f.minLength != nil {
			p["minLength"] = *f.minLength
		}
		if f.maxLength != nil {
			p["maxLength"] = *f.maxLength
		}
		if f.enum != nil {
			p["enum"] = f.enum
		}
		if f.pattern != nil {
			p["pattern"] = f.pattern.String()
		}
		if f.desc != "" {
			p["description"] = f.desc
		}
		props[f.name] = p
		if f.required {
			required = append(required, f.name)
		}
	}
	if sp, ok := reflect.New(t).Interface().(schemaPatcher); ok {
		sp.patchSchema(props)
	}
	return props, required
}

// checkArgs checks the arguments in *v (a pointer to an argument struct) against their tags.
func checkArgs(v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return nil
	}
	rv = rv.Elem()
	fields := argFields(rv.Type())
	for i, f := range fields {
		if err := f.check(rv.FieldByIndex(f.index)); err != nil {
			if errors.Is(err, errAbsent) {
				return missing(rv, fields[i:])
			}
			return err
		}
	}
	return nil
}

// errAbsent is the check's error of a required argument that is absent.
var errAbsent = errors.New("absent")

// missing says which required arguments of fields are absent: all of them, so that one answer
// tells an agent everything it left out.
func missing(rv reflect.Value, fields []argField) error {
	var names []string
	help := ""
	for i, f := range fields {
		if err := f.check(rv.FieldByIndex(f.index)); errors.Is(err, errAbsent) {
			names = append(names, f.name)
			if i == 0 || f.help == help {
				help = f.help
			} else {
				help = ""
			}
		}
	}
	msg := names[0] + " is required"
	if len(names) > 1 {
		msg = orList(names) + " are required"
		msg = strings.Replace(msg, " or ", " and ", 1)
	}
	if help != "" {
		msg += ": " + help
	}
	return errors.New(msg)
}

func (f *argField) check(v reflect.Value) error {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return f.absent()
		}
		v = v.Elem()
	}
	switch {
	case f.array:
		if v.IsNil() || (v.Len() == 0 && (f.minItems == nil || *f.minItems <= 1)) { // [] of a tuple: its count is wrong
			return f.absent()
		}
		n := v.Len()
		if f.minItems != nil && f.maxItems != nil && *f.minItems == *f.maxItems && n != *f.minItems {
			return f.bad("%s must be %d %s, got %d", f.name, *f.minItems, f.itemWords(), n)
		}
		if f.minItems != nil && n < *f.minItems {
			return f.bad("%s has %d %s; at least %d %[3]s", f.name, n, f.itemWords(), *f.minItems)
		}
		if f.maxItems != nil && n > *f.maxItems {
			return f.bad("%s has %d %s; at most %d %[3]s", f.name, n, f.itemWords(), *f.maxItems)
		}
		for i := range n {
			if x, ok := number(v.Index(i)); ok && outside(x, f.itemMin, f.itemMax) {
				return f.bad("%s[%d] must be %s, got %s", f.name, i, f.between(f.itemMin, f.itemMax), FormatNumber(x))
			}
		}
	case f.kind == reflect.String:
		s := v.String()
		if strings.TrimSpace(s) == "" {
			if s != "" && !f.required && f.pattern != nil { // no blank matches: a mistake, not an absence
				return f.bad("%s is blank: give one, or leave %[1]s out", f.name)
			}
			return f.absent()
		}
		if !utf8.ValidString(s) {
			return f.bad("%s must be valid UTF-8", f.name)
		}
		// In characters, as JSON Schema's minLength and maxLength count: 北京 is 2, not 6.
		if n := utf8.RuneCountInString(s); f.minLength != nil && n < *f.minLength {
			return f.bad("%s is %d characters long; at least %d", f.name, n, *f.minLength)
		} else if f.maxLength != nil && n > *f.maxLength {
			return f.bad("%s is %d characters long; at most %d", f.name, n, *f.maxLength)
		}
		if f.enum != nil {
			e, ok := tagEnumValue(f.enum, s)
			if !ok {
				return f.bad("%s must be %s, got %q", f.name, orList(f.enum), clip(s))
			}
			v.SetString(e) // the listed spelling, as mcp/steps checks it (enum_values.go)
			s = e
		}
		if f.pattern != nil && !f.pattern.MatchString(s) {
			return f.bad("%s %q must match %s", f.name, clip(s), f.pattern)
		}
	default:
		if !f.pointer && v.IsZero() {
			return f.absent()
		}
		if x, ok := number(v); ok && outside(x, f.min, f.max) {
			return f.bad("%s must be %s, got %s", f.name, f.between(f.min, f.max), FormatNumber(x))
		}
	}
	return nil
}

// absent is the error of an absent argument (errAbsent: missing words it): none when it is
// optional.
func (f *argField) absent() error {
	if !f.required {
		return nil
	}
	return errAbsent
}

// bad is the error of a wrong value, with the field's hint.
func (f *argField) bad(format string, a ...any) error {
	msg := fmt.Sprintf(format, a...)
	if f.hint != "" {
		msg += "; " + f.hint
	}
	return fmt.Errorf("%s", msg)
}

// between says what a number must be: "between 0 and 1", "at least 0" or "at most 60", with
// the field's unit; whole numbers whole (3600000, not 3.6e+06).
func (f *argField) between(lo, hi *float64) string {
	s := "between " + FormatNumber(deref(lo)) + " and " + FormatNumber(deref(hi))
	switch {
	case lo == nil:
		s = "at most " + FormatNumber(deref(hi))
	case hi == nil:
		s = "at least " + FormatNumber(deref(lo))
	}
	if f.unit != "" {
		s += " " + f.unit
	}
	return s
}

// itemWords names an array's items: numbers, or as the array is called (steps).
func (f *argField) itemWords() string {
	if jsonType(f.kind) == "number" || jsonType(f.kind) == "integer" {
		return "numbers"
	}
	return f.name
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

func outside(x float64, lo, hi *float64) bool {
	return x != x || (lo != nil && x < *lo) || (hi != nil && x > *hi)
}

// number reads a numeric value.
func number(v reflect.Value) (float64, bool) {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		return v.Float(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(v.Uint()), true
	}
	return 0, false
}

// orList writes "a, b or c".
func orList(list []string) string {
	if len(list) < 2 {
		return strings.Join(list, "")
	}
	return strings.Join(list[:len(list)-1], ", ") + " or " + list[len(list)-1]
}
