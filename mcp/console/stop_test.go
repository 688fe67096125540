package console

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// An arm rig's page offers Stop (emergency_stop: one click, the serial only, no lease, as the
// front door's call), and no other platform's does; a halted rig's page says why its gestures
// are off and offers none (they would be refused), Stop still there and no Recover; so does
// an offline device's.
func TestStopAndAHaltedRigsPage(t *testing.T) {
	farm := testFarm()
	farm.devices = append(farm.devices,
		broker.DeviceEntry{Serial: "arm1", Platform: device.PlatformArm, Node: "n2", State: broker.StateOnline, Tags: []string{"lab"}},
		broker.DeviceEntry{Serial: "gone1", Platform: "android", Node: "n9", State: broker.StateOffline, Reason: "node lost", Tags: []string{"lab"}})
	acts := &fakeActions{}
	srv, _ := actionsConsole(t, farm, acts)
	s := openSession(t, srv, labToken, "/devices/arm1")

	_, page := s.do(t, http.MethodGet, "/devices/arm1", "")
	if !strings.Contains(page, `data-action="stop"`) || strings.Contains(page, "data-paused-text>H") || strings.Contains(page, `data-action="recover"`) {
		t.Errorf("a running rig's page: want a Stop button, no halt and no Recover:\n%s", controlsOf(page))
	}
	if _, other := s.do(t, http.MethodGet, "/devices/d2", ""); strings.Contains(other, `data-action="stop"`) {
		t.Errorf("an iPhone's page offers Stop:\n%s", controlsOf(other))
	}
	if status, a := s.act(t, "arm1", "stop", ""); status != http.StatusOK || !a.OK {
		t.Errorf("stop: %d %+v", status, a)
	}
	if calls := acts.taken(); len(calls) != 1 || calls[0] != `labber emergency_stop {"serial":"arm1"}` {
		t.Errorf("stop called %q; want emergency_stop of arm1 alone", calls)
	}

	farm.set("arm1", func(d *broker.DeviceEntry) { d.State, d.Reason = broker.StateUnhealthy, device.HaltReasonStop })
	_, page = s.do(t, http.MethodGet, "/devices/arm1", "")
	controls := controlsOf(page)
	for _, want := range []string{`data-action="stop"`, "data-paused-text>Halted (halted by emergency_stop", "corral arm recover", `data-action="home" data-gesture disabled`} {
		if !strings.Contains(controls, want) {
			t.Errorf("a halted rig's page has no %q:\n%s", want, controls)
		}
	}
	_, text := s.do(t, http.MethodGet, "/console/api/devices/arm1?tasks=0", "")
	var d deviceData
	if err := json.Unmarshal([]byte(text), &d); err != nil || !d.Device.Halted || !strings.HasPrefix(d.Paused, "Halted (") {
		t.Errorf("a halted rig's data: %v %s; want halted, and why its gestures are off", err, text)
	}
	if d.Device.Stopped == nil || *d.Device.Stopped != (stopView{By: "unknown"}) {
		t.Errorf("a rig an older node kept halted: stopped %+v; want by unknown at an unknown time", d.Device.Stopped)
	}
	stop := device.Stop{By: "alice (ci)", At: time.Date(2026, 12, 5, 16, 22, 18, 0, time.UTC)}
	farm.set("arm1", func(d *broker.DeviceEntry) { d.Reason = stop.Reason() + " (halted under node n1)" })
	_, text = s.do(t, http.MethodGet, "/console/api/devices/arm1?tasks=0", "")
	d = deviceData{}
	if err := json.Unmarshal([]byte(text), &d); err != nil || d.Device.Stopped == nil || d.Device.Stopped.By != stop.By || !d.Device.Stopped.At.Equal(stop.At) {
		t.Errorf("a stopped rig's data: %v %s; want who stopped it and when", err, text)
	}
	farm.set("arm1", func(d *broker.DeviceEntry) {
		d.Reason = "controller in alarm (ALARM:1 Hard limit): resume with arm_recover"
	})
	_, text = s.do(t, http.MethodGet, "/console/api/devices/arm1?tasks=0", "")
	d = deviceData{}
	if err := json.Unmarshal([]byte(text), &d); err != nil || !d.Device.Halted || d.Device.Stopped != nil {
		t.Errorf("a rig in alarm: %v %s; want halted, stopped by no one", err, text)
	}

	_, page = s.do(t, http.MethodGet, "/devices/gone1", "")
	if c := controlsOf(page); !strings.Contains(c, "data-paused-text>Offline (node lost)") || !strings.Contains(c, `data-action="home" data-gesture disabled`) {
		t.Errorf("an offline device's page offers its gestures:\n%s", c)
	}
}

// controlsOf is a device page's Control panel.
func controlsOf(page string) string {
	_, c, _ := strings.Cut(page, `id="controls"`)
	c, _, _ = strings.Cut(c, "</section>")
	return c
}

// An offline device's page does not blame its node when the node is up and only the device
// went (unplugged): the words fit both.
func TestOfflinePageBlamesNoNode(t *testing.T) {
	for _, reason := range []string{"node lost", "device disconnected"} {
		got := pausedText(deviceView{State: broker.StateOffline, Reason: reason})
		if !strings.HasPrefix(got, "Offline ("+reason+"): nothing reaches the device until it is back online") || strings.Contains(got, "its node") {
			t.Errorf("offline (%s): %q", reason, got)
		}
	}
}
