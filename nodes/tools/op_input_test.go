package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

func TestInput(t *testing.T) {
	d := newAbled()
	var typed []string
	d.InputTextFn = func(_ context.Context, s string) error { typed = append(typed, s); return nil }
	res := mustRun(t, "input", d, `{"text":"héllo\nworld"}`)
	if res["text"] != "héllo\nworld" || len(typed) != 1 || typed[0] != "héllo\nworld" {
		t.Fatalf("typed %q, result %v", typed, res)
	}
	full, _ := json.Marshal(map[string]string{"text": strings.Repeat("a", MaxInputBytes)})
	mustRun(t, "input", d, string(full))
	over, _ := json.Marshal(map[string]string{"text": strings.Repeat("a", MaxInputBytes+1)})
	for _, args := range []string{string(over), `{"text":""}`, `{}`, `{"text":5}`, `{"text":["a"]}`, `{"text":"a","enter":true}`} {
		_, err := runOp(t, "input", d, args)
		wantCode(t, err, broker.CodeBadInput)
	}
	if len(typed) != 2 {
		t.Fatalf("bad input reached the driver: %d calls", len(typed))
	}
	if err := checkArgs(&InputArgs{Text: "ab\xffc"}); err == nil {
		t.Fatal("invalid UTF-8 passed the check")
	}
	_, err := runOp(t, "input", newFake(), `{"text":"a"}`)
	wantCode(t, err, broker.CodeUnsupported)
}

func TestPressButton(t *testing.T) {
	for args, want := range map[string]string{
		`{"button":"HOME"}`:         "HOME",
		`{"button":"home"}`:         "HOME",
		`{"button":" volume up "}`:  "VOLUME_UP",
		`{"button":"volume-down"}`:  "VOLUME_DOWN",
		`{"button":"KEYCODE_BACK"}`: "BACK",
		`{"button":"delete"}`:       "DEL",
		`{"button":"Enter"}`:        "ENTER",
	} {
		d := newAbled()
		var got string
		d.PressKeyFn = func(_ context.Context, k string) error { got = k; return nil }
		res := mustRun(t, "press_button", d, args)
		if got != want || res["button"] != want {
			t.Errorf("press_button %s: pressed %q, result %v; want %s", args, got, res["button"], want)
		}
	}
	d := newAbled()
	d.PressKeyFn = func(context.Context, string) error { t.Error("bad input reached the driver"); return nil }
	for _, args := range []string{`{"button":"FLY"}`, `{"button":""}`, `{}`, `{"button":1}`, `{"button":"` + strings.Repeat("X", 5000) + `"}`} {
		_, err := runOp(t, "press_button", d, args)
		wantCode(t, err, broker.CodeBadInput)
		if len(err.Error()) > 400 {
			t.Errorf("error message echoes too much: %d bytes", len(err.Error()))
		}
	}
	_, err := runOp(t, "press_button", newFake(), `{"button":"HOME"}`)
	wantCode(t, err, broker.CodeUnsupported)
}

func TestHomeAndBack(t *testing.T) {
	d := newAbled()
	var keys []string
	d.PressKeyFn = func(_ context.Context, k string) error { keys = append(keys, k); return nil }
	mustRun(t, "home", d, `{}`)
	mustRun(t, "back", d, ``)
	if strings.Join(keys, ",") != "HOME,BACK" {
		t.Fatalf("keys %v", keys)
	}
	_, err := runOp(t, "home", d, `{"button":"HOME"}`)
	wantCode(t, err, broker.CodeBadInput)

	d.info.Platform = device.PlatformIOS
	_, err = runOp(t, "back", d, `{}`)
	wantCode(t, err, broker.CodeUnsupported)
	_, err = runOp(t, "press_button", d, `{"button":"BACK"}`)
	wantCode(t, err, broker.CodeUnsupported)
	mustRun(t, "home", d, `{}`)

	_, err = runOp(t, "home", newFake(), `{}`)
	wantCode(t, err, broker.CodeUnsupported)
	d.PressKeyFn = func(context.Context, string) error { return errDriver }
	_, err = runOp(t, "home", d, `{}`)
	wantCode(t, err, broker.CodeDriver)
}
