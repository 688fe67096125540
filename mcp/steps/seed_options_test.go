package steps

import (
	"testing"

	"github.com/corral-farm/corral/internal/farmtest"
)

// HttpRunner adds its general options to any action's arguments (extractActionOptionsToArguments):
// a converted step that carries them where they mean nothing passes the check and runs through
// the gateway. They were refused "unknown argument" on every tool but the find-and-tap ones.
func TestSeedOptionsPassEveryHttpRunnerTool(t *testing.T) {
	f, c, cat := startFarm(t)
	opts := map[string]any{"max_retry_times": 3, "index": 1, "regex": true, "ignore_NotFoundError": true, "anti_risk": true, "pre_mark_operation": true}
	serial := f.Phones()[0].Info().Serial
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"tap_xy", map[string]any{"x": 0.5, "y": 0.5}},
		{"get_screen_size", map[string]any{}},
		{"sleep_ms", map[string]any{"milliseconds": 1}},
	} {
		args := map[string]any{"serial": serial}
		for k, v := range call.args {
			args[k] = v
		}
		for k, v := range opts {
			args[k] = v
		}
		if err := cat.Check(call.tool, args); err != nil {
			t.Errorf("%s with HttpRunner's general options: %v", call.tool, err)
			continue
		}
		res := farmtest.Call(t, c, call.tool, args)
		if res.IsError {
			t.Errorf("%s with HttpRunner's general options: %s", call.tool, farmtest.Text(res))
		}
	}
	// The gateway still checks their types, and any other argument is refused as before.
	res := farmtest.Call(t, c, "tap_xy", map[string]any{"serial": serial, "x": 0.5, "y": 0.5, "max_retry_times": "three"})
	if !res.IsError {
		t.Error("max_retry_times as a string was taken")
	}
	if err := cat.Check("tap_xy", map[string]any{"x": 0.5, "y": 0.5, "retries": 3}); err == nil {
		t.Error(`"retries" was taken`)
	}
}
