package console

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// A draining node's devices say on the console since when and by whom (the registry entry's
// draining_since and draining_by): in the grid's JSON and on the pages as served (their
// scripts say it again in the browser's zone). An older node's entry tells neither: its
// device says only that it drains. A device that does not drain says nothing of it.
func TestConsoleShowsWhoDrainsAndSince(t *testing.T) {
	farm := testFarm()
	since := time.Date(2026, 12, 5, 9, 30, 15, 0, time.Local)
	farm.set("d1", func(d *broker.DeviceEntry) {
		d.Draining, d.DrainingSince, d.DrainingBy = true, since, "operator ann@bench"
	})
	farm.set("d3", func(d *broker.DeviceEntry) { d.Draining = true }) // an older node's entry
	farm.set("d2", func(d *broker.DeviceEntry) { d.DrainingSince, d.DrainingBy = since, "operator ann@bench" })
	srv, _ := testConsole(t, farm, nil)

	_, body := get(t, srv, "/console/api/devices", simToken)
	var g gridData
	if err := json.Unmarshal([]byte(body), &g); err != nil || len(g.Devices) != 2 {
		t.Fatalf("the grid: %v %s", err, body)
	}
	if d1 := g.Devices[0]; !d1.Draining || !d1.DrainingSince.Equal(since) || d1.DrainingBy != "operator ann@bench" {
		t.Errorf("d1 in the grid's JSON: draining %v since %v by %q", d1.Draining, d1.DrainingSince, d1.DrainingBy)
	}
	if d3 := g.Devices[1]; !d3.Draining || !d3.DrainingSince.IsZero() || d3.DrainingBy != "" {
		t.Errorf("d3 in the grid's JSON: draining %v since %v by %q", d3.Draining, d3.DrainingSince, d3.DrainingBy)
	}

	const drained = `<p class="drain" data-f="drain">Draining since 09:30:15 by operator ann@bench</p>`
	_, page := get(t, srv, "/", simToken)
	if !strings.Contains(page, drained) || !strings.Contains(page, `<p class="drain" data-f="drain">Draining</p>`) {
		t.Errorf("the grid as served says nothing of d1's drain (%s) or d3's", drained)
	}
	_, page = get(t, srv, "/devices/d1", simToken)
	if !strings.Contains(page, drained) {
		t.Errorf("d1's page as served does not say %s", drained)
	}
	_, page = get(t, srv, "/devices/d2", labToken)
	if strings.Contains(page, "Draining") || strings.Contains(page, "ann@bench") {
		t.Errorf("d2's page speaks of a drain, though its node does not drain")
	}
}
