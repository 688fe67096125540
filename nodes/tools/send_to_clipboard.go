package tools

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/corral-farm/corral/nodes/device"
)

// ClipboardArgs are send_to_clipboard's arguments (PhysiClaw seed).
type ClipboardArgs struct {
	Text string `json:"text" arg:"required,minLength=1,maxLength=10000" secret:"true" desc:"Text to copy (UTF-8, at most 10,000 bytes)" help:"the text to put on the phone's clipboard"`
	Behaviour
}

// maxClipboardBytes bounds send_to_clipboard's text in UTF-8 bytes, as its description says:
// the schema's maxLength counts characters, and a character may take up to four bytes.
const maxClipboardBytes = 10000

// Check refuses text longer than maxClipboardBytes bytes.
func (a *ClipboardArgs) Check() error {
	if n := len(a.Text); n > maxClipboardBytes {
		return fmt.Errorf("text is %d bytes of UTF-8 (%d characters); at most %d bytes: send it in parts, pasting each",
			n, utf8.RuneCountInString(a.Text), maxClipboardBytes)
	}
	return nil
}

// ClipboardResult is send_to_clipboard's structured result.
type ClipboardResult struct {
	Message    string `json:"message" jsonschema:"What was done"`
	Characters int    `json:"characters" jsonschema:"Number of characters put on the clipboard"`
	Hint       string `json:"hint"`
}

func sendToClipboard() Tool {
	return Define[ClipboardArgs, ClipboardResult](Tool{Name: "send_to_clipboard", Description: "Put text on the phone's clipboard (PhysiClaw): then long_press the field and tap Paste, faster than typing.",
		Hints: Hints{Idempotent: true}, Timeout: 10 * time.Second, MaxTimeout: time.Minute, Profiles: []string{PhysiClaw}, Step: StepText, Short: textShort,
		Needs: []Ability{Need[device.ClipboardSetter]("set its clipboard")},
	}, func(ctx context.Context, t *Task, a ClipboardArgs) (Output, error) {
		if err := t.Driver.(device.ClipboardSetter).SetClipboard(ctx, a.Text); err != nil {
			return Output{}, err
		}
		n := utf8.RuneCountInString(a.Text)
		return Output{Data: ClipboardResult{Message: fmt.Sprintf("put %d characters on the clipboard", n), Characters: n, Hint: hintClipboard}}, nil
	})
}
