package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
)

func TestSetIME(t *testing.T) {
	d := newAbled()
	var got []string
	d.SetIMEFn = func(_ context.Context, s string) error { got = append(got, s); return nil }
	res := mustRun(t, "set_ime", d, `{"ime":"com.android.adbkeyboard/.AdbIME"}`)
	if len(got) != 1 || got[0] != "com.android.adbkeyboard/.AdbIME" || res["ime"] != got[0] || res["hint"] == "" {
		t.Fatalf("ime %q result %v", got, res)
	}
	for _, args := range []string{`{}`, `{"ime":""}`, `{"ime":"a b"}`, `{"ime":"x;reboot"}`, `{"ime":"a$(id)"}`,
		`{"ime":"` + strings.Repeat("a", 256) + `"}`, `{"ime":7}`, `{"method":"x"}`} {
		_, err := runOp(t, "set_ime", d, args)
		wantCode(t, err, broker.CodeBadInput)
	}
	if len(got) != 1 {
		t.Fatalf("bad input reached the driver: %q", got)
	}
	_, err := runOp(t, "set_ime", newFake(), `{"ime":"a/.b"}`)
	wantCode(t, err, broker.CodeUnsupported)
}
