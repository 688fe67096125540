package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
)

func TestAppLaunchTerminate(t *testing.T) {
	d := newAbled()
	var calls []string
	d.LaunchAppFn = func(_ context.Context, p string) error { calls = append(calls, "launch "+p); return nil }
	d.TerminateAppFn = func(_ context.Context, p string) error { calls = append(calls, "stop "+p); return nil }
	mustRun(t, "app_launch", d, `{"packageName":"com.android.settings"}`)
	mustRun(t, "app_terminate", d, `{"packageName":"com.apple.mobile-safari_2"}`)
	mustRun(t, "app_launch", d, `{"packageName":"https://shop.example/cart?id=7"}`) // a browser device's
	if strings.Join(calls, ",") != "launch com.android.settings,stop com.apple.mobile-safari_2,launch https://shop.example/cart?id=7" {
		t.Fatalf("calls %v", calls)
	}
	for _, args := range []string{
		`{}`, `{"packageName":""}`, `{"packageName":"com.x; reboot"}`, `{"packageName":"com.x\n"}`,
		`{"packageName":"` + strings.Repeat("a", 256) + `"}`, `{"package":"com.x"}`, `{"packageName":7}`,
		`{"packageName":"file:///etc/passwd"}`, `{"packageName":"javascript:alert(1)"}`, `{"packageName":"https://a b"}`,
	} {
		for _, op := range []string{"app_launch", "app_terminate"} {
			_, err := runOp(t, op, d, args)
			wantCode(t, err, broker.CodeBadInput)
		}
	}
	if len(calls) != 3 {
		t.Fatalf("bad input reached the driver: %v", calls)
	}
	_, err := runOp(t, "app_launch", newFake(), `{"packageName":"com.x"}`)
	wantCode(t, err, broker.CodeUnsupported)
}
