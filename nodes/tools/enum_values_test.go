package tools

import (
	"encoding/json"
	"reflect"
	"testing"
)

// What a tool takes as an enum argument's value is what EnumValue (mcp/steps' check) takes, in
// the spelling it runs with; what it refuses, EnumValue refuses.
func TestEnumValueIsTheToolsOwnRule(t *testing.T) {
	for _, c := range []struct {
		tool, args, arg, want string // want "" when the tool refuses it
	}{
		{"press_button", `{"button":"home"}`, "button", "HOME"},
		{"press_button", `{"button":" back "}`, "button", "BACK"},
		{"press_button", `{"button":"KEYCODE_VOLUME_UP"}`, "button", "VOLUME_UP"},
		{"press_button", `{"button":"volume down"}`, "button", "VOLUME_DOWN"},
		{"press_button", `{"button":"delete"}`, "button", "DEL"},
		{"press_button", `{"button":"hom"}`, "button", ""},
		{"swipe_direction", `{"direction":"UP"}`, "direction", "up"},
		{"swipe_direction", `{"direction":" Left "}`, "direction", "left"},
		{"swipe_direction", `{"direction":"sideways"}`, "direction", ""},
		{"swipe", `{"direction":"DOWN"}`, "direction", "down"},
		{"swipe", `{"bbox":[0.1,0.1,0.9,0.9],"direction":"up","size":"XL"}`, "size", "xl"},
		{"swipe_to_tap_text", `{"text":"Buy","direction":"Right"}`, "direction", "right"},
		{"take_screenshot", `{"format":" JPEG "}`, "format", "jpeg"},
	} {
		tool, ok := Lookup(c.tool)
		if !ok {
			t.Fatalf("no tool %s", c.tool)
		}
		a := reflect.New(tool.Args)
		err := DecodeArgs(json.RawMessage(c.args), a.Interface())
		var raw map[string]any
		if e := json.Unmarshal([]byte(c.args), &raw); e != nil {
			t.Fatal(e)
		}
		got, ok := EnumValue(c.tool, c.arg, raw[c.arg].(string))
		if c.want == "" {
			if err == nil || ok {
				t.Errorf("%s %s: the tool's error %v, EnumValue (%q, %v); want both to refuse", c.tool, c.args, err, got, ok)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %s: %v", c.tool, c.args, err)
			continue
		}
		ran := jsonField(t, a.Interface(), c.arg)
		if !ok || got != c.want || ran != c.want {
			t.Errorf("%s %s: the tool runs with %q, EnumValue gives (%q, %v); want %q for both", c.tool, c.args, ran, got, ok, c.want)
		}
	}
	if v, ok := EnumValue("tap_xy", "x", "0.5"); ok {
		t.Errorf("tap_xy's x is no enum, EnumValue gives %q", v)
	}
	if v, ok := EnumValue("nope", "button", "home"); ok {
		t.Errorf("no tool nope, EnumValue gives %q", v)
	}
}

// jsonField reads the argument named arg from an argument struct as its JSON has it.
func jsonField(t *testing.T, args any, arg string) string {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	s, _ := m[arg].(string)
	return s
}
