package tools

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/corral-farm/corral/nodes/device"
)

// ClipboardArgs are send_to_clipboard's arguments (PhysiClaw seed).
type ClipboardArgs struct {
	Text string `json:"text"`
}

// Check validates the arguments.
func (a *ClipboardArgs) Check() error {
	switch {
	case a.Text == "":
		return errors.New("text is required: the text to put on the phone's clipboard")
	case len(a.Text) > MaxInputBytes:
		return fmt.Errorf("text is %d bytes long; at most %d per call", len(a.Text), MaxInputBytes)
	case !utf8.ValidString(a.Text):
		return errors.New("text must be valid UTF-8")
	}
	return nil
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

// maxIME bounds an input method id.
const maxIME = 255

// IMEArgs are set_ime's arguments (HttpRunner seed).
type IMEArgs struct {
	IME string `json:"ime"`
}

// Check validates the arguments: an input method id is a package name, '/', and a class name,
// e.g. com.android.adbkeyboard/.AdbIME.
func (a *IMEArgs) Check() error {
	if a.IME == "" {
		return errors.New("ime is required: an input method id such as com.android.adbkeyboard/.AdbIME (adb shell ime list -s lists them)")
	}
	if len(a.IME) > maxIME {
		return fmt.Errorf("ime is %d bytes long; at most %d", len(a.IME), maxIME)
	}
	for _, r := range a.IME {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' || r == '/'
		if !ok {
			return fmt.Errorf("ime %q has %q in it; input method ids are letters, digits, '.', '_', '-' and '/', e.g. com.android.adbkeyboard/.AdbIME", clip(a.IME), r)
		}
	}
	return nil
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
