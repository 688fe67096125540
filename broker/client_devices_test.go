package broker

import (
	"slices"
	"testing"
	"time"
)

// Devices gives one entry per serial, sorted: of a serial's entries on several nodes, a live one
// before an offline one, then the one seen first, then the lower key.
func TestDevicesOnePerSerial(t *testing.T) {
	t0 := time.Now()
	entry := func(node, serial, state string, since time.Time) (string, cachedEntry) {
		key := node + "." + serial
		return key, cachedEntry{DeviceEntry: DeviceEntry{V: 1, Serial: serial, Node: node, State: state}, key: key, since: since}
	}
	c := &Client{devices: map[string]cachedEntry{}, keysOf: map[string][]string{}}
	for _, e := range []struct {
		node, serial, state string
		since               time.Time
	}{
		{"n1", "moved", StateOffline, t0},                 // unplugged from n1 …
		{"n2", "moved", StateOnline, t0.Add(time.Second)}, // … and plugged into n2
		{"n2", "twice", StateOnline, t0.Add(time.Second)},
		{"n3", "twice", StateOnline, t0}, // seen first
		{"n5", "tie", StateOnline, t0},
		{"n4", "tie", StateOnline, t0}, // lower key
		{"n1", "alone", StateBusy, t0},
	} {
		k, v := entry(e.node, e.serial, e.state, e.since)
		c.devices[k] = v
		c.keysOf[e.serial] = append(c.keysOf[e.serial], k)
	}
	var got []string
	for _, d := range c.Devices() {
		got = append(got, d.Serial+"@"+d.Node)
	}
	if want := []string{"alone@n1", "moved@n2", "tie@n4", "twice@n3"}; !slices.Equal(got, want) {
		t.Fatalf("Devices() = %v, want %v", got, want)
	}
	for _, d := range c.Devices() { // Device agrees, through its index
		if one, ok := c.Device(d.Serial); !ok || one.Node != d.Node {
			t.Errorf("Device(%q) = %s, %v; Devices() has it on %s", d.Serial, one.Node, ok, d.Node)
		}
	}
	c.unindex("moved", "n2.moved")
	if one, ok := c.Device("moved"); !ok || one.Node != "n1" {
		t.Errorf("Device(moved) after n2's entry went = %s, %v; want n1's", one.Node, ok)
	}
	c.unindex("moved", "n1.moved")
	if _, ok := c.Device("moved"); ok || len(c.keysOf["moved"]) != 0 {
		t.Errorf("Device(moved) found after both its entries went: %v", c.keysOf)
	}
}
