package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

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
