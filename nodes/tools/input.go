package tools

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/corral-farm/corral/nodes/device"
)

// MaxInputBytes bounds the text of one input call.
const MaxInputBytes = 10000

// InputArgs are input's arguments (HttpRunner seed).
type InputArgs struct {
	Text string `json:"text" arg:"required,minLength=1,maxLength=10000" secret:"true" desc:"Text to type" help:"the text to type into the focused element" hint:"split it into several input calls"`
	Behaviour
}

// InputResult is input's structured result (HttpRunner seed).
type InputResult struct {
	Message string `json:"message" jsonschema:"What was done"`
	Text    string `json:"text" jsonschema:"The text typed into the field"`
	Hint    string `json:"hint,omitempty"`
}

func input() Tool {
	return Define[InputArgs, InputResult](Tool{Name: "input", Description: "Type text into the focused element.",
		Timeout: 30 * time.Second, MaxTimeout: 5 * time.Minute, Profiles: []string{HttpRunner}, Step: StepText, Short: textShort,
		Needs: []Ability{Need[device.TextInputter]("type text").Else(
			"send_to_clipboard puts the text on its clipboard, then long_press the field and tap Paste")},
	}, func(ctx context.Context, t *Task, a InputArgs) (Output, error) {
		if err := t.Driver.(device.TextInputter).InputText(ctx, a.Text); err != nil {
			return Output{}, err
		}
		return Output{Data: InputResult{Message: fmt.Sprintf("typed %d characters", utf8.RuneCountInString(a.Text)), Text: a.Text, Hint: hintInput}}, nil
	})
}
