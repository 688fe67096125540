package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
)

func TestForceQuit(t *testing.T) {
	d := newAbled()
	var calls []string
	d.ForegroundFn = func(context.Context) (string, error) { return "com.example.app", nil }
	d.TerminateAppFn = func(_ context.Context, p string) error { calls = append(calls, "stop "+p); return nil }
	d.PressKeyFn = func(_ context.Context, k string) error { calls = append(calls, "key "+k); return nil }
	res := mustRun(t, "force_quit", d, `{}`)
	if strings.Join(calls, ",") != "stop com.example.app,key HOME" {
		t.Fatalf("calls %v", calls)
	}
	if res["packageName"] != "com.example.app" || res["quit"] != true || !strings.Contains(res["hint"].(string), "reopen") {
		t.Fatalf("result %v", res)
	}

	// The home screen in front: nothing to quit.
	calls = nil
	d.ForegroundFn = func(context.Context) (string, error) { return "com.google.android.apps.nexuslauncher", nil }
	res = mustRun(t, "force_quit", d, `{}`)
	if len(calls) != 0 || res["quit"] != false || !strings.Contains(res["message"].(string), "no app to quit") {
		t.Fatalf("launcher in front: calls %v result %v", calls, res)
	}

	// The system UI in front, or a failure: an error, nothing stopped. (Nothing in front:
	// force_quit_nothing_open_test.go.)
	for fg, want := range map[string]string{"com.android.systemui": "system UI"} {
		d.ForegroundFn = func(context.Context) (string, error) { return fg, nil }
		_, err := runOp(t, "force_quit", d, `{}`)
		wantCode(t, err, broker.CodeDriver)
		if !strings.Contains(err.Error(), want) {
			t.Errorf("foreground %q: %v", fg, err)
		}
	}
	d.ForegroundFn = func(context.Context) (string, error) { return "", errDriver }
	_, err := runOp(t, "force_quit", d, `{}`)
	wantCode(t, err, broker.CodeDriver)
	if len(calls) != 0 {
		t.Fatalf("stopped something: %v", calls)
	}
	_, err = runOp(t, "force_quit", newFake(), `{}`)
	wantCode(t, err, broker.CodeUnsupported)
	_, err = runOp(t, "force_quit", d, `{"packageName":"com.x"}`)
	wantCode(t, err, broker.CodeBadInput)
}
