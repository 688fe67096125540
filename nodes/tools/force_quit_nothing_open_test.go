package tools

import (
	"context"
	"strings"
	"testing"
)

// Nothing in front (a browser with its last tab closed: get_foreground_app's "nothing is in
// front") is no failure: force_quit answers that there is no app to quit, stops nothing and
// says how to open one.
func TestForceQuitWithNothingOpen(t *testing.T) {
	d := newAbled()
	var calls []string
	d.TerminateAppFn = func(_ context.Context, p string) error { calls = append(calls, "stop "+p); return nil }
	d.PressKeyFn = func(_ context.Context, k string) error { calls = append(calls, "key "+k); return nil }
	for _, fg := range []string{"", " "} {
		d.ForegroundFn = func(context.Context) (string, error) { return fg, nil }
		res := mustRun(t, "force_quit", d, `{}`)
		if len(calls) != 0 || res["quit"] != false || res["packageName"] != "" ||
			!strings.Contains(res["message"].(string), "no app to quit") || !strings.Contains(res["hint"].(string), "app_launch") {
			t.Fatalf("foreground %q: calls %v result %v", fg, calls, res)
		}
	}
}
