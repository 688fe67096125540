package steps

import (
	"strings"
	"testing"

	"github.com/corral-farm/corral/internal/farmtest"
)

// An enum argument of a tool the gateway answers itself (platform, a list's state) is checked
// by the gateway's own rule, as a device tool's is by the tool's: `corral run` takes a step in
// another case or with spaces exactly when the gateway takes the call (QA: replay checked these
// exactly, so `acquire_device {platform: Android}`, which the gateway took, was refused before
// anything ran), and refuses what the gateway refuses.
func TestGatewayEnumsAreCheckedAsTheGatewayTakesThem(t *testing.T) {
	f, c, cat := startFarm(t)
	serial := f.Devices()[0].Serial
	type m = map[string]any
	for _, s := range []struct {
		tool  string
		args  m
		takes bool
	}{
		{"list_available_devices", m{"state": "ONLINE"}, true},
		{"list_available_devices", m{"state": " Online "}, true},
		{"list_leases", m{"state": "LEASED"}, true},
		{"list_available_devices", m{"platform": " Android "}, true},
		{"get_device_status", m{"platform": "ANDROID", "serial": serial}, true},
		{"select_device", m{"platform": " Android "}, true},
		{"acquire_device", m{"platform": "Android"}, true},
		{"list_available_devices", m{"state": "sleeping"}, false},
		{"list_leases", m{"state": "on line"}, false},
	} {
		checked := cat.Check(s.tool, s.args)
		res := farmtest.Call(t, c, s.tool, s.args)
		refused := res.IsError && strings.Contains(farmtest.Text(res), "bad_input")
		if (checked == nil) != s.takes || refused == s.takes {
			t.Errorf("%s %v: corral run's check says %v; the gateway answers %s", s.tool, s.args, checked, farmtest.Text(res))
		}
		if res.IsError && s.takes {
			t.Errorf("%s %v: %s", s.tool, s.args, farmtest.Text(res))
		}
	}
}
