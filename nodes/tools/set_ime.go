package tools

import (
	"context"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// IMEArgs are set_ime's arguments (HttpRunner seed).
type IMEArgs struct {
	IME string `json:"ime" arg:"required,maxLength=255" pattern:"^[A-Za-z0-9._/-]+$" desc:"Input method id, e.g. com.android.adbkeyboard/.AdbIME" help:"an input method id such as com.android.adbkeyboard/.AdbIME (adb shell ime list -s lists them)" hint:"input method ids are a package name, '/' and a class name: letters, digits, '.', '_', '-' and '/'"`
	Behaviour
}

// IMEResult is set_ime's structured result (HttpRunner seed).
type IMEResult struct {
	Message string `json:"message" jsonschema:"What was done"`
	IME     string `json:"ime" jsonschema:"The input method editor that was set"`
	Hint    string `json:"hint"`
}

func setIME() Tool {
	return Define[IMEArgs, IMEResult](Tool{Name: "set_ime", Description: "Set the input method (keyboard; Android only).", Hints: Hints{Idempotent: true},
		Timeout: 10 * time.Second, MaxTimeout: time.Minute, Profiles: []string{HttpRunner},
		Short: Short{Kind: ShortText, Keys: []string{"ime"}, Usage: `an input method id, e.g. "com.android.adbkeyboard/.AdbIME"`},
		Needs: []Ability{Need[device.IMESetter]("change its input method")},
	}, func(ctx context.Context, t *Task, a IMEArgs) (Output, error) {
		if err := t.Driver.(device.IMESetter).SetIME(ctx, a.IME); err != nil {
			return Output{}, err
		}
		return Output{Data: IMEResult{Message: "input method set to " + a.IME, IME: a.IME, Hint: hintIME}}, nil
	})
}
