package mcp

import (
	"strings"
	"testing"
)

// Refusals speak the caller's language: limits as whole numbers (86400000 (24 h), not
// 8.64e+07), a null tag as a null, a blank packageName as blank. Nothing reaches the farm.
func TestRefusalsReadAsTheCallerWrote(t *testing.T) {
	phone := "android-1"
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"home", map[string]any{"serial": phone, "timeout_ms": 9e7}, "timeout_ms 90000000 is above home's cap of " + capMS(t, "home") + " ms; ask for less"},
		{"sleep", map[string]any{"serial": phone, "timeout_ms": 99999999999.0}, "timeout_ms 99999999999 is above sleep's cap of " + capMS(t, "sleep") + " ms; ask for less"},
		{"home", map[string]any{"serial": phone, "timeout_ms": 0}, "timeout_ms must be between 1 and 86400000 (24 h), got 0"},
		{"sleep_ms", map[string]any{"serial": phone, "milliseconds": 3600001}, "milliseconds must be between 0 and 3600000 ms (1 h), got 3600001"},
		{"get_source", map[string]any{"serial": phone, "packageName": "   "}, "packageName is blank"},
		{"list_available_devices", map[string]any{"tags": []any{nil}}, "tags[0] must be a string, got null"},
		{"acquire_device", map[string]any{"tags": []any{"lab", nil}}, "tags[1] must be a string, got null"},
	} {
		farm := newFakeFarm(t)
		cl := newTestClient(t, farm)
		res := call(t, cl, c.tool, c.args)
		wantError(t, res, c.want)
		if text := resultText(res); strings.Contains(text, "e+0") || strings.Contains(text, "each tag must be 1 to") {
			t.Errorf("%s %v: %s", c.tool, c.args, text)
		}
		if n := len(farm.Runs()); n != 0 {
			t.Errorf("%s %v reached farm.Run", c.tool, c.args)
		}
	}
}
