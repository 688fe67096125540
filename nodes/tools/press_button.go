package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// Buttons are the key names press_button accepts. A driver may still refuse one its device
// does not have (iOS has no BACK or MENU, a browser no POWER or WAKEUP): bad_input, BACK on
// iOS unsupported.
var Buttons = []string{"HOME", "BACK", "ENTER", "DEL", "VOLUME_UP", "VOLUME_DOWN", "POWER",
	"MENU", "APP_SWITCH", "TAB", "ESCAPE", "SEARCH", "WAKEUP"}

// buttonAliases are other names agents use for some buttons.
var buttonAliases = map[string]string{"DELETE": "DEL", "BACKSPACE": "DEL", "RETURN": "ENTER", "ESC": "ESCAPE", "RECENTS": "APP_SWITCH"}

// PressButtonArgs are press_button's arguments (HttpRunner seed).
type PressButtonArgs struct {
	Button string `json:"button" arg:"required" desc:"Button name" help:"a button name such as HOME, BACK or VOLUME_UP"`
	Behaviour
}

// Check validates the button and normalizes it (buttonName).
func (a *PressButtonArgs) Check() error {
	b, ok := buttonName(a.Button)
	switch {
	case b == "":
		return fmt.Errorf("button is required: one of %s", strings.Join(Buttons, ", "))
	case !ok:
		return fmt.Errorf("unknown button %q: use one of %s", clip(b), strings.Join(Buttons, ", "))
	}
	a.Button = b
	return nil
}

// buttonName is the button s names, in upper case: "volume up" → VOLUME_UP, KEYCODE_HOME →
// HOME, DELETE → DEL; false when it is none of Buttons (with s as far as it got).
func buttonName(s string) (string, bool) {
	b := strings.ToUpper(strings.TrimSpace(s))
	b = strings.NewReplacer(" ", "_", "-", "_").Replace(b)
	b = strings.TrimPrefix(b, "KEYCODE_")
	if alias, ok := buttonAliases[b]; ok {
		b = alias
	}
	return b, slices.Contains(Buttons, b)
}

// enumValue takes the button's spellings that Check takes (enum_values.go).
func (*PressButtonArgs) enumValue(arg, s string) (string, bool) {
	if arg != "button" {
		return "", false
	}
	b, ok := buttonName(s)
	if !ok {
		return "", false
	}
	return b, true
}

// patchSchema lists the buttons: Check takes aliases too ("volume up", "KEYCODE_HOME").
func (*PressButtonArgs) patchSchema(props map[string]map[string]any) {
	props["button"]["enum"] = Buttons
}

// ButtonResult is press_button's structured result (HttpRunner seed).
type ButtonResult struct {
	Message string `json:"message" jsonschema:"What was done"`
	Button  string `json:"button" jsonschema:"Name of the button that was pressed"`
	Hint    string `json:"hint,omitempty"`
}

func pressButton() Tool {
	return Define[PressButtonArgs, ButtonResult](Tool{Name: "press_button", Description: "Press a device button (iOS: HOME, VOLUME_UP, VOLUME_DOWN, POWER, WAKEUP; ENTER, DEL, TAB typed).",
		Timeout: 10 * time.Second, MaxTimeout: time.Minute, Profiles: []string{HttpRunner}, Step: StepObject,
		Short: Short{Kind: ShortText, Keys: []string{"button"}, Usage: `a button name, e.g. "BACK"`},
		Needs: []Ability{Need[device.KeyPresser]("press buttons")},
	}, func(ctx context.Context, t *Task, a PressButtonArgs) (Output, error) {
		if err := pressKey(ctx, t.Driver, a.Button); err != nil {
			return Output{}, err
		}
		return Output{Data: ButtonResult{Message: pressedMessage(t.Driver, a.Button), Button: a.Button, Hint: hintAction}}, nil
	})
}
