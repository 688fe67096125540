package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/corral-farm/corral/nodes/device"
)

// MaxInputBytes bounds the text of one input call.
const MaxInputBytes = 10000

// Buttons are the key names press_button accepts. A driver may still refuse one its device
// does not have (iOS has no BACK).
var Buttons = []string{"HOME", "BACK", "ENTER", "DEL", "VOLUME_UP", "VOLUME_DOWN", "POWER",
	"MENU", "APP_SWITCH", "TAB", "ESCAPE", "SEARCH"}

// buttonAliases are other names agents use for some buttons.
var buttonAliases = map[string]string{"DELETE": "DEL", "BACKSPACE": "DEL", "RETURN": "ENTER", "ESC": "ESCAPE", "RECENTS": "APP_SWITCH"}

// InputArgs are input's arguments (HttpRunner seed).
type InputArgs struct {
	Text string `json:"text" arg:"required,minLength=1,maxLength=10000" desc:"Text to type" help:"the text to type into the focused element" hint:"split it into several input calls"`
}

// InputResult is input's structured result (HttpRunner seed).
type InputResult struct {
	Message string `json:"message" jsonschema:"Success message confirming the text input"`
	Text    string `json:"text" jsonschema:"The text typed into the field"`
	Hint    string `json:"hint,omitempty"`
}

// PressButtonArgs are press_button's arguments (HttpRunner seed).
type PressButtonArgs struct {
	Button string `json:"button" arg:"required" desc:"Button name" help:"a button name such as HOME, BACK or VOLUME_UP"`
}

// Check validates the button and normalizes it: upper case, "volume up" → VOLUME_UP,
// KEYCODE_HOME → HOME, DELETE → DEL.
func (a *PressButtonArgs) Check() error {
	b := strings.ToUpper(strings.TrimSpace(a.Button))
	b = strings.NewReplacer(" ", "_", "-", "_").Replace(b)
	b = strings.TrimPrefix(b, "KEYCODE_")
	if alias, ok := buttonAliases[b]; ok {
		b = alias
	}
	if b == "" {
		return fmt.Errorf("button is required: one of %s", strings.Join(Buttons, ", "))
	}
	if !slices.Contains(Buttons, b) {
		return fmt.Errorf("unknown button %q: use one of %s", clip(b), strings.Join(Buttons, ", "))
	}
	a.Button = b
	return nil
}

// ButtonResult is press_button's structured result (HttpRunner seed).
type ButtonResult struct {
	Message string `json:"message" jsonschema:"Success message confirming the button press"`
	Button  string `json:"button" jsonschema:"Name of the button that was pressed"`
	Hint    string `json:"hint,omitempty"`
}

func opInput() Op {
	return Op{Name: "input", Timeout: 30 * time.Second, MaxTimeout: 5 * time.Minute,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			var a InputArgs
			if err := DecodeArgs(t.Args, &a); err != nil {
				return Output{}, err
			}
			d, ok := t.Driver.(device.TextInputter)
			if !ok {
				return Output{}, Unsupported(t.Driver, "type text")
			}
			if err := d.InputText(ctx, a.Text); err != nil {
				return Output{}, err
			}
			return Output{Data: InputResult{Message: fmt.Sprintf("typed %d characters", utf8.RuneCountInString(a.Text)), Text: a.Text, Hint: hintInput}}, nil
		}}
}

func opPressButton() Op {
	return Op{Name: "press_button", Timeout: 10 * time.Second, MaxTimeout: time.Minute,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			var a PressButtonArgs
			if err := DecodeArgs(t.Args, &a); err != nil {
				return Output{}, err
			}
			if err := pressKey(ctx, t.Driver, a.Button); err != nil {
				return Output{}, err
			}
			return Output{Data: ButtonResult{Message: "pressed " + a.Button, Button: a.Button, Hint: hintAction}}, nil
		}}
}

// opKey is a tool without arguments that presses one key (home, back, home_screen).
func opKey(name, key, hint string) Op {
	return Op{Name: name, Timeout: 10 * time.Second, MaxTimeout: time.Minute,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			if err := DecodeArgs(t.Args, &NoArgs{}); err != nil {
				return Output{}, err
			}
			if err := pressKey(ctx, t.Driver, key); err != nil {
				return Output{}, err
			}
			return Output{Data: MessageResult{Message: "pressed " + key, Hint: hint}}, nil
		}}
}

// pressKey presses key if the driver can; iOS devices have no BACK key.
func pressKey(ctx context.Context, d device.Driver, key string) error {
	k, ok := d.(device.KeyPresser)
	if !ok {
		return Unsupported(d, "press "+key)
	}
	if key == "BACK" && d.Info().Platform == device.PlatformIOS {
		return Unsupported(d, "press BACK (iOS devices have no back button; swipe right from the left edge instead)")
	}
	return k.PressKey(ctx, key)
}

// clip shortens a caller's string for an error message.
func clip(s string) string { return clipN(s, 40) }

// patchSchema lists the buttons: Check takes aliases too ("volume up", "KEYCODE_HOME").
func (*PressButtonArgs) patchSchema(props map[string]map[string]any) {
	props["button"]["enum"] = Buttons
}

func input() Tool {
	return NewTool[InputArgs, InputResult](Tool{Description: "Type text into the focused element.",
		Profiles: []string{HttpRunner}, Step: StepText, Short: textShort}).withOp(opInput())
}

func pressButton() Tool {
	return NewTool[PressButtonArgs, ButtonResult](Tool{Description: "Press a device button (iOS: HOME, VOLUME_UP, VOLUME_DOWN, POWER only).",
		Profiles: []string{HttpRunner}, Step: StepObject, Short: Short{Kind: ShortText, Keys: []string{"button"}, Usage: `a button name, e.g. "BACK"`}}).withOp(opPressButton())
}

func home() Tool {
	return NewTool[NoArgs, MessageResult](Tool{Description: "Press the HOME button.", Hints: Hints{Idempotent: true},
		Profiles: []string{HttpRunner}, Step: StepObject, Short: noParams}).withOp(opKey("home", "HOME", hintAction))
}

func back() Tool {
	return NewTool[NoArgs, MessageResult](Tool{Description: "Press BACK (Android).",
		Profiles: []string{HttpRunner}, Step: StepObject, Short: noParams}).withOp(opKey("back", "BACK", hintAction))
}
