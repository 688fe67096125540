package tools

import (
	"reflect"
	"strings"
)

// An enum argument takes its values in more spellings than its schema lists: a tag's enum
// without case or surrounding space (" UP " is up), press_button's buttons with their aliases
// too ("home", "volume up", KEYCODE_HOME). The rule is declared once per argument, here, and
// both the tool (its checks put the value in the listed spelling) and mcp/steps' check of a step
// against the schema use it (EnumValue): a step the tool would take is not refused before it
// runs, such as an agent task's export, which replays the model's own spelling.

// enumSpeller is an argument struct with an enum argument that no tag declares (its schema's
// enum is patched in) and that takes other spellings than the listed ones.
type enumSpeller interface {
	// enumValue returns s, a value of argument arg, in the spelling the schema lists, and
	// whether it is one of its values.
	enumValue(arg, s string) (string, bool)
}

// EnumValue returns s, a value of the argument arg of the tool named, in the spelling the
// tool's schema lists ("home" → HOME for press_button, "UP" → up for swipe_direction), and true
// when the tool takes s; false when it does not, or arg is no enum argument of the tool's.
func EnumValue(tool, arg, s string) (string, bool) {
	t, ok := Lookup(tool)
	if !ok || t.Args == nil {
		return "", false
	}
	return enumValueOf(t.Args, arg, s)
}

// enumValueOf is EnumValue for the argument struct type t.
func enumValueOf(t reflect.Type, arg, s string) (string, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return "", false
	}
	for _, f := range argFields(t) {
		if f.name == arg && f.enum != nil && !f.array {
			return tagEnumValue(f.enum, s)
		}
	}
	if sp, ok := reflect.New(t).Interface().(enumSpeller); ok {
		return sp.enumValue(arg, s)
	}
	return "", false
}

// tagEnumValue is the rule of a tag's enum: s without case or surrounding space.
func tagEnumValue(enum []string, s string) (string, bool) {
	s = strings.TrimSpace(s)
	for _, e := range enum {
		if strings.EqualFold(e, s) {
			return e, true
		}
	}
	return "", false
}
