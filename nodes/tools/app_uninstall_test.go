package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
)

func TestAppUninstallAndClear(t *testing.T) {
	d := newAbled()
	var calls []string
	d.UninstallAppFn = func(_ context.Context, p string) error { calls = append(calls, "uninstall "+p); return nil }
	d.ClearAppFn = func(_ context.Context, p string) error { calls = append(calls, "clear "+p); return nil }
	u := mustRun(t, "app_uninstall", d, `{"packageName":"com.example.app"}`)
	c := mustRun(t, "app_clear", d, `{"packageName":"com.example.app"}`)
	if strings.Join(calls, ",") != "uninstall com.example.app,clear com.example.app" {
		t.Fatalf("calls %v", calls)
	}
	for _, res := range []map[string]any{u, c} {
		if res["packageName"] != "com.example.app" || res["message"] == "" || res["hint"] == "" {
			t.Errorf("result %v", res)
		}
	}
	for _, op := range []string{"app_uninstall", "app_clear"} {
		for _, args := range []string{`{}`, `{"packageName":"a;b"}`, `{"packageName":1}`} {
			_, err := runOp(t, op, d, args)
			wantCode(t, err, broker.CodeBadInput)
		}
		_, err := runOp(t, op, newFake(), `{"packageName":"com.x"}`)
		wantCode(t, err, broker.CodeUnsupported)
	}
	if len(calls) != 2 {
		t.Fatalf("bad input reached the driver: %v", calls)
	}
	d.ClearAppFn = func(context.Context, string) error { return errDriver }
	_, err := runOp(t, "app_clear", d, `{"packageName":"com.x"}`)
	wantCode(t, err, broker.CodeDriver)
}
