package mcp

import "testing"

// limit 0 is refused as -3 is, as the schema (minimum 1) and docs/tools.md have it; it was
// taken for the default page. Left out, or null, limit is the default.
func TestListLimitZeroIsRefused(t *testing.T) {
	farm := newFakeFarm(t)
	farm.devices = manyDevices(60, 1)
	c := newTestClient(t, farm)
	for _, tool := range []string{"list_available_devices", "list_leases"} {
		wantError(t, call(t, c, tool, map[string]any{"limit": 0}), "limit must be 1 to 100 (default 50), got 0")
	}
	if p := listPage(t, c, "list_available_devices", map[string]any{}); len(p.Devices) != DefaultPageLimit {
		t.Fatalf("no limit: %d devices, want the default %d", len(p.Devices), DefaultPageLimit)
	}
	if p := listPage(t, c, "list_available_devices", map[string]any{"limit": nil}); len(p.Devices) != DefaultPageLimit {
		t.Fatalf("limit null: %d devices, want the default %d", len(p.Devices), DefaultPageLimit)
	}
	if p := listPage(t, c, "list_available_devices", map[string]any{"limit": 1}); len(p.Devices) != 1 {
		t.Fatalf("limit 1: %d devices", len(p.Devices))
	}
}
