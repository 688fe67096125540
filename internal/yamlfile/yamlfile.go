// Package yamlfile decodes a settings file written in YAML (a rigs file, a policy file)
// strictly, and tells its mistakes in the file's own words: an unknown key by name with the
// keys allowed there, a value of the wrong kind as it is written with what was expected, each
// with its line; never a Go type ("field foo not found in type mcp.policyFile").
package yamlfile

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

var (
	// ErrEmpty is the error of a file with no document in it (nothing, or only comments).
	ErrEmpty = errors.New("the file is empty")
	// ErrSyntax is wrapped by the error of a file that is not YAML at all.
	ErrSyntax = errors.New("not valid YAML")
)

// Decode decodes the first document of data into v, a pointer to a struct whose fields have
// yaml tags. Every key v's type has no field for, and every value its field cannot take, is
// an error; all of them are returned, joined.
func Decode(data []byte, v any) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("%w: %s", ErrSyntax, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if doc.Kind == 0 || len(doc.Content) == 0 || doc.Content[0].ShortTag() == "!!null" {
		return ErrEmpty
	}
	var errs []error
	check(doc.Content[0], reflect.TypeOf(v).Elem(), "", &errs)
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if err := doc.Decode(v); err != nil { // a case check does not know: yaml's own words
		return errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return nil
}

var (
	durationType    = reflect.TypeFor[time.Duration]()
	unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()
)

// check compares node n with the type t it is decoded into; key names the value in messages.
func check(n *yaml.Node, t reflect.Type, key string, errs *[]error) {
	if n.Kind == yaml.AliasNode { // checked where it is anchored; following it could multiply the work
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.ShortTag() == "!!null" || reflect.PointerTo(t).Implements(unmarshalerType) {
		return
	}
	bad := func(format string, a ...any) {
		where := fmt.Sprintf("line %d: ", n.Line)
		if key != "" {
			where += key + ": "
		}
		*errs = append(*errs, fmt.Errorf(where+format, a...))
	}
	switch {
	case t == durationType:
		if _, err := time.ParseDuration(n.Value); n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" || err != nil {
			bad("%s is not a duration (like 80ms, 5s or 1m30s)", shown(n))
		}
	case t.Kind() == reflect.Struct:
		if n.Kind != yaml.MappingNode {
			bad("%s is not a set of keys (%s)", shown(n), strings.Join(keys(t), ", "))
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			f, ok := field(t, k.Value)
			if !ok {
				*errs = append(*errs, fmt.Errorf("line %d: unknown key %q (the keys are: %s)", k.Line, clip(k.Value), strings.Join(keys(t), ", ")))
				continue
			}
			check(val, f.Type, k.Value, errs)
		}
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		if n.Kind != yaml.SequenceNode {
			bad("%s is not a list (write [a, b] or one \"- item\" a line)", shown(n))
			return
		}
		for i, item := range n.Content {
			if item.ShortTag() == "!!null" && scalarKind(t.Elem().Kind()) { // it would decode as "" or 0
				*errs = append(*errs, fmt.Errorf("line %d: %s: item %d is empty (null): write a value or leave the item out", item.Line, key, i+1))
				continue
			}
			check(item, t.Elem(), key, errs)
		}
	case t.Kind() == reflect.Map || t.Kind() == reflect.Interface:
		// any keys, any values: nothing to check here
	case n.Kind != yaml.ScalarNode:
		bad("%s is not %s", shown(n), kindWords(t.Kind()))
	default:
		if !scalarFits(n, t.Kind()) {
			bad("%s is not %s", shown(n), kindWords(t.Kind()))
		}
	}
}

// scalarFits says whether scalar n decodes into a value of kind k.
func scalarFits(n *yaml.Node, k reflect.Kind) bool {
	tag := n.ShortTag()
	switch k {
	case reflect.Bool:
		return tag == "!!bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return tag == "!!int"
	case reflect.Float32, reflect.Float64:
		return tag == "!!int" || tag == "!!float"
	}
	return true // text takes any scalar
}

// scalarKind says whether values of kind k are written as one scalar.
func scalarKind(k reflect.Kind) bool {
	switch k {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Array, reflect.Struct:
		return false
	}
	return true
}

// kindWords names what a value of kind k is written as.
func kindWords(k reflect.Kind) string {
	switch k {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "text"
}

// shown is a value as the file writes it: a scalar quoted, a list or a set of keys by kind.
func shown(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a set of keys"
	}
	return strconv.Quote(clip(n.Value))
}

// clip shortens s to 60 bytes for a message.
func clip(s string) string {
	if len(s) <= 60 {
		return s
	}
	cut := 60
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// keys are the keys struct t takes, in its fields' order.
func keys(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if name := yamlName(t.Field(i)); name != "" {
			out = append(out, name)
		}
	}
	return out
}

// field is the field of struct t that key names.
func field(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		if f := t.Field(i); yamlName(f) == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// yamlName is the key of field f as yaml.v3 names it: its tag's name, else its name in lower
// case; "" for a field yaml leaves out.
func yamlName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	switch name {
	case "-":
		return ""
	case "":
		return strings.ToLower(f.Name)
	}
	return name
}
