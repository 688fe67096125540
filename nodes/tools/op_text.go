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
	Text string `json:"text" arg:"required,minLength=1,maxLength=10000" desc:"Text to copy (UTF-8, at most 10,000 bytes)" help:"the text to put on the phone's clipboard"`
}

// ClipboardResult is send_to_clipboard's structured result.
type ClipboardResult struct {
	Message    string `json:"message" jsonschema:"Success message confirming the text is on the clipboard"`
	Characters int    `json:"characters" jsonschema:"Number of characters put on the clipboard"`
	Hint       string `json:"hint"`
}

func opSendToClipboard() Op {
	return Op{Name: "send_to_clipboard", Timeout: 10 * time.Second, MaxTimeout: time.Minute,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			var a ClipboardArgs
			if err := DecodeArgs(t.Args, &a); err != nil {
				return Output{}, err
			}
			d, ok := t.Driver.(device.ClipboardSetter)
			if !ok {
				return Output{}, Unsupported(t.Driver, "set its clipboard")
			}
			if err := d.SetClipboard(ctx, a.Text); err != nil {
				return Output{}, err
			}
			n := utf8.RuneCountInString(a.Text)
			return Output{Data: ClipboardResult{Message: fmt.Sprintf("put %d characters on the clipboard", n), Characters: n, Hint: hintClipboard}}, nil
		}}
}

// IMEArgs are set_ime's arguments (HttpRunner seed).
type IMEArgs struct {
	IME string `json:"ime" arg:"required,maxLength=255" pattern:"^[A-Za-z0-9._/-]+$" desc:"Input method id, e.g. com.android.adbkeyboard/.AdbIME" help:"an input method id such as com.android.adbkeyboard/.AdbIME (adb shell ime list -s lists them)" hint:"input method ids are a package name, '/' and a class name: letters, digits, '.', '_', '-' and '/'"`
}

// IMEResult is set_ime's structured result (HttpRunner seed).
type IMEResult struct {
	Message string `json:"message" jsonschema:"Success message confirming the IME setting"`
	IME     string `json:"ime" jsonschema:"The input method editor that was set"`
	Hint    string `json:"hint"`
}

func opSetIME() Op {
	return Op{Name: "set_ime", Timeout: 10 * time.Second, MaxTimeout: time.Minute,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			var a IMEArgs
			if err := DecodeArgs(t.Args, &a); err != nil {
				return Output{}, err
			}
			d, ok := t.Driver.(device.IMESetter)
			if !ok {
				return Output{}, Unsupported(t.Driver, "change its input method")
			}
			if err := d.SetIME(ctx, a.IME); err != nil {
				return Output{}, err
			}
			return Output{Data: IMEResult{Message: "input method set to " + a.IME, IME: a.IME, Hint: hintIME}}, nil
		}}
}

func sendToClipboard() Tool {
	return NewTool[ClipboardArgs, ClipboardResult](Tool{Description: "Put text on the phone's clipboard (PhysiClaw): then long_press the field and tap Paste, faster than typing.",
		Hints: Hints{Idempotent: true}, Profiles: []string{PhysiClaw}, Step: StepText, Short: textShort}).withOp(opSendToClipboard())
}

func setIME() Tool {
	return NewTool[IMEArgs, IMEResult](Tool{Description: "Set the input method (keyboard).", Hints: Hints{Idempotent: true},
		Profiles: []string{HttpRunner}, Short: Short{Kind: ShortText, Keys: []string{"ime"}, Usage: `an input method id, e.g. "com.android.adbkeyboard/.AdbIME"`}}).withOp(opSetIME())
}
