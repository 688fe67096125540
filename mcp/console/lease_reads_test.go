package console

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Lease data is list_leases' (docs/console.md): a viewer who may call it sees who holds a
// device since when (the lease's acquired_at), its expiry and its queue; one who may not sees
// none of them, queue lengths included (list_available_devices and get_device_status tell no
// queue either), and a line saying why, on the grid and the device page.
func TestLeaseDataFollowsListLeases(t *testing.T) {
	farm := testFarm()
	acquired := time.Now().Add(-10 * time.Minute).Round(time.Second)
	farm.leases[0].AcquiredAt = acquired
	viewers := map[string]Viewer{
		"leaser-token-0123456789":  {Name: "leaser"},
		"noleaser-token-012345678": {Name: "noleaser", MayCall: func(tool string) bool { return tool != toolLeases }},
	}
	srv := httptest.NewServer(New(Config{Farm: farm, History: &fakeHistory{}, Authenticate: func(token string) (Viewer, bool) {
		v, ok := viewers[token]
		return v, ok
	}, Named: func(string) (Viewer, bool) { return Viewer{}, false }}))
	t.Cleanup(srv.Close)

	_, body := get(t, srv, "/console/api/devices", "leaser-token-0123456789")
	var g gridData
	if err := json.Unmarshal([]byte(body), &g); err != nil {
		t.Fatal(err)
	}
	d1 := g.Devices[0]
	if d1.Serial != "d1" || !d1.HeldSince.Equal(acquired) || d1.QueueLen == nil || *d1.QueueLen != 2 || g.LeasesHidden != "" {
		t.Errorf("leaser's grid: %+v, hidden %q; want d1 held since %s with 2 waiting", d1, g.LeasesHidden, acquired)
	}
	if _, page := get(t, srv, "/devices/d1", "leaser-token-0123456789"); !strings.Contains(page, `alice (agent)</span><span data-f="since"> since `) {
		t.Errorf("leaser's device page does not say since when alice holds d1")
	}

	_, body = get(t, srv, "/console/api/devices", "noleaser-token-012345678")
	const why = "Your token may not call list_leases, so the console shows no lease times or queue lengths."
	if strings.Contains(body, "queue_len") || strings.Contains(body, "lease_expires") || strings.Contains(body, "held_since") ||
		!strings.Contains(body, `"leases_hidden":"`+why+`"`) {
		t.Errorf("noleaser's grid shows lease data, or not why it shows none: %s", body)
	}
	_, page := get(t, srv, "/devices/d1", "noleaser-token-012345678")
	if !strings.Contains(page, why) || !strings.Contains(page, `data-f="queue">—<`) {
		t.Errorf("noleaser's device page: want %q and no queue length", why)
	}
	if _, grid := get(t, srv, "/", "noleaser-token-012345678"); !strings.Contains(grid, why) {
		t.Errorf("noleaser's grid page does not say why it shows no lease data")
	}
}
