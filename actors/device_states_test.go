package actors

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// corral_devices counts every device by state at scrape time, with zeros for a known node's
// platforms and states, and corral_device_state keeps one series a device.
func TestDeviceStatesCountAtScrape(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg)
	m.KnowNode("n1")
	m.moveDevice("android", "n1", "a1", "online")
	m.moveDevice("android", "n1", "a2", "online")
	m.moveDevice("android", "n1", "a2", "busy")
	m.moveDevice("web", "n2", "w1", "leased")
	want := `
# HELP corral_device_state 1, labelled with the device's current state (one series a device).
# TYPE corral_device_state gauge
corral_device_state{node="n1",platform="android",serial="a1",state="online"} 1
corral_device_state{node="n1",platform="android",serial="a2",state="busy"} 1
corral_device_state{node="n2",platform="web",serial="w1",state="leased"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "corral_device_state"); err != nil {
		t.Fatal(err)
	}
	counts := map[string]float64{}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	series := 0
	for _, mf := range mfs {
		if mf.GetName() != "corral_devices" {
			continue
		}
		for _, s := range mf.GetMetric() {
			series++
			var key []string
			for _, l := range s.GetLabel() {
				key = append(key, l.GetValue())
			}
			counts[strings.Join(key, "/")] = s.GetGauge().GetValue()
		}
	}
	for k, v := range map[string]float64{"n1/android/online": 1, "n1/android/busy": 1, "n1/ios/online": 0, "n1/arm/offline": 0, "n2/web/leased": 1} {
		if got, ok := counts[k]; !ok || got != v {
			t.Errorf("corral_devices{%s} = %v (present %v), want %v", k, got, ok, v)
		}
	}
	if _, ok := counts["n2/ios/online"]; ok {
		t.Error("zeros shown for n2, a node never made known")
	}
	if t.Failed() {
		t.Logf("%d series: %v", series, counts)
	}
}
