package actors

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/broker"
)

// deviceStates is every device's state as its scheduler last showed it, turned into series at
// scrape time: corral_device_state (one series a device, labelled with its state) and
// corral_devices (counts by node, platform and state). Every task flips its device busy and
// back; keeping series up to date at each flip (a delete and a create, four label look-ups)
// cost more than the rest of the scheduler's work on a call.
type deviceStates struct {
	state, count *prometheus.Desc

	mu      sync.Mutex
	devices map[deviceKey]string // → state
	nodes   map[string]bool      // nodes whose zero counts are shown (KnowNode)
}

type deviceKey struct{ node, platform, serial string }

func newDeviceStates() *deviceStates {
	return &deviceStates{
		state: prometheus.NewDesc("corral_device_state", "1, labelled with the device's current state (one series a device).",
			[]string{"node", "platform", "serial", "state"}, nil),
		count:   prometheus.NewDesc("corral_devices", "Devices by node, platform and state.", []string{"node", "platform", "state"}, nil),
		devices: map[deviceKey]string{},
		nodes:   map[string]bool{},
	}
}

func (d *deviceStates) set(k deviceKey, state string) {
	d.mu.Lock()
	d.devices[k] = state
	d.mu.Unlock()
}

func (d *deviceStates) know(node string) {
	d.mu.Lock()
	d.nodes[node] = true
	d.mu.Unlock()
}

// Describe and Collect make deviceStates a prometheus.Collector.
func (d *deviceStates) Describe(ch chan<- *prometheus.Desc) { ch <- d.state; ch <- d.count }

func (d *deviceStates) Collect(ch chan<- prometheus.Metric) {
	type countKey struct{ node, platform, state string }
	type shown struct {
		deviceKey
		state string
	}
	// Copy under the lock, send after it: schedulers must not wait on a slow scrape.
	d.mu.Lock()
	devices := make([]shown, 0, len(d.devices))
	for k, s := range d.devices {
		devices = append(devices, shown{k, s})
	}
	counts := make(map[countKey]int, len(d.nodes)*len(knownPlatforms)*len(broker.States))
	for node := range d.nodes {
		for _, p := range knownPlatforms {
			for _, s := range broker.States {
				counts[countKey{node, p, s}] = 0
			}
		}
	}
	d.mu.Unlock()
	for _, dev := range devices {
		counts[countKey{dev.node, dev.platform, dev.state}]++
		ch <- prometheus.MustNewConstMetric(d.state, prometheus.GaugeValue, 1, dev.node, dev.platform, dev.serial, dev.state)
	}
	for k, n := range counts {
		ch <- prometheus.MustNewConstMetric(d.count, prometheus.GaugeValue, float64(n), k.node, k.platform, k.state)
	}
}
