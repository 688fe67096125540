package steps

import (
	"fmt"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/tools"
)

// A step's enum argument in another case, with spaces or (press_button) by an alias passes the
// check, as the tool takes it (an agent task's export replays the model's "home"); a value the
// tool refuses is refused before anything runs, naming the values.
func TestCheckTakesWhatTheToolTakes(t *testing.T) {
	_, _, cat := startFarm(t)
	type m = map[string]any
	for _, c := range []struct {
		tool string
		args m
	}{
		{"press_button", m{"button": "home"}},
		{"press_button", m{"button": " back "}},
		{"press_button", m{"button": "KEYCODE_HOME"}},
		{"press_button", m{"button": "volume up"}},
		{"swipe_direction", m{"direction": "UP"}},
		{"swipe_direction", m{"direction": " Left "}},
		{"swipe", m{"direction": "DOWN"}},
		{"take_screenshot", m{"format": "JPEG"}},
	} {
		args := fmt.Sprint(c.args)
		if err := cat.Check(c.tool, c.args); err != nil {
			t.Errorf("Check(%s, %v): %v", c.tool, c.args, err)
		}
		if fmt.Sprint(c.args) != args {
			t.Errorf("Check(%s) changed its arguments to %v", c.tool, c.args)
		}
	}
	for tool, args := range map[string]m{
		"press_button":    {"button": "hom"},
		"swipe_direction": {"direction": "sideways"},
	} {
		err := cat.Check(tool, args)
		if err == nil || !strings.Contains(err.Error(), " must be one of ") {
			t.Errorf("Check(%s, %v) = %v, want the values named", tool, args, err)
		}
	}
}

// checkValue, given a value as enumSpelled puts it, takes every spelling of every enum value
// of the node's tools that the tool takes: each value in upper case, lower case and with spaces.
func TestCheckValueTakesEveryEnumSpelling(t *testing.T) {
	_, _, cat := startFarm(t)
	n := 0
	for _, tool := range cat.Names() {
		if _, ok := tools.Lookup(tool); !ok {
			continue // the gateway's own tools
		}
		props := cat.tools[tool].schema.Properties
		for arg, s := range props {
			for _, e := range s.Enum {
				v, ok := e.(string)
				if !ok {
					continue
				}
				for _, spelt := range []string{strings.ToUpper(v), strings.ToLower(v), " " + v + " "} {
					n++
					got := enumSpelled(tool, map[string]any{arg: spelt})[arg]
					if err := checkValue(arg, s, got); err != nil {
						t.Errorf("%s %s %q: %v", tool, arg, spelt, err)
					}
				}
			}
		}
	}
	if n < 30 {
		t.Errorf("only %d spellings checked: the catalog lost its enums?", n)
	}
	if err := checkValue("button", cat.tools["press_button"].schema.Properties["button"], "home"); err == nil {
		t.Error(`checkValue takes "home" unspelled: the schema lists HOME`)
	}
}
