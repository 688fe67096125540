package broker

import (
	"encoding/json"
	"time"
)

// A node's heartbeats and down events are how gateways know it is there, whatever the wire
// version it speaks: one of a newer version is still a node alive, or one that stopped.
// Refusing its beats as its registry entries and answers are refused (wire_version.go) would
// declare it lost, and the loss event would make it revoke its leases: a rolling upgrade of the
// nodes ahead of the gateways would drop every holder of their devices. So a newer node's beat
// keeps it alive by the two fields that say who beats (node, boot), read on their own, and its
// down event counts (its subject says it); the fields this Corral may misread (devices, sent)
// are not read. The gateway says once per node and version to upgrade it. Its devices are
// not listed meanwhile (their registry entries are skipped), so no task is routed to them.

// beat reads one heartbeat.
func (c *Client) beat(data []byte) {
	var hb Heartbeat
	err := json.Unmarshal(data, &hb)
	v := hb.V
	if err != nil {
		v = wireVersionOf(data) // a newer Corral may have changed a field's type
	}
	if newerWire(v) {
		hb = Heartbeat{V: v, Node: stringField(data, "node"), Boot: stringField(data, "boot")}
		if hb.Node == "" {
			c.newer.warn(c.log, "heartbeats", v, "a heartbeat of a newer wire version names no node this Corral can read; ignored: upgrade the gateway")
			return
		}
		c.newerNode(hb.Node, v)
	} else if err != nil || hb.Node == "" {
		return
	}
	c.newerBeats.saw(hb.Node, v) // eachNode asks a newer node nothing (eachnode_newer.go)
	c.lastBeats.saw(hb, data)
	c.live.Beat(hb.Node, hb.Boot, time.Now())
	c.opts.Metrics.nodeBeat(hb.Node)
}

// newerNode says once per node and version that node speaks a newer wire version.
func (c *Client) newerNode(node string, v int) {
	c.newer.warn(c.log, "node "+node, v, "node speaks a newer wire version: kept alive by its heartbeats, "+
		"but its devices are not listed and its answers refused: upgrade the gateway", "node", node)
}

// stringField reads one string field of a JSON object on its own, "" when it is not one: a
// newer payload's other fields may not decode as this Corral's.
func stringField(data []byte, name string) string {
	var fields map[string]json.RawMessage
	var s string
	if json.Unmarshal(data, &fields) != nil || json.Unmarshal(fields[name], &s) != nil {
		return ""
	}
	return s
}
