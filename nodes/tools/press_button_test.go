package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
)

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
