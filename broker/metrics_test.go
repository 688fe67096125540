package broker

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// A node is up from its first heartbeat until it is declared lost, and up again when it beats.
func TestNodeUp(t *testing.T) {
	m := NewClientMetrics(prometheus.NewRegistry())
	read := func(c prometheus.Metric) float64 {
		var d dto.Metric
		if err := c.Write(&d); err != nil {
			t.Fatal(err)
		}
		return d.GetGauge().GetValue() + d.GetCounter().GetValue()
	}
	m.nodeBeat("n1")
	if v := read(m.up.WithLabelValues("n1")); v != 1 {
		t.Fatalf("corral_node_up{node=n1} = %v after a heartbeat", v)
	}
	m.nodeLost("n1")
	if v, lost := read(m.up.WithLabelValues("n1")), read(m.lost.WithLabelValues("n1")); v != 0 || lost != 1 {
		t.Fatalf("after the loss: corral_node_up %v, corral_node_losses_total %v", v, lost)
	}
	m.nodeBeat("n1")
	if v := read(m.up.WithLabelValues("n1")); v != 1 {
		t.Fatalf("corral_node_up{node=n1} = %v after the node came back", v)
	}
	// A node that said it stopped is down, and no loss is counted: restarts are not flaps.
	m.nodeStopped("n1")
	if v, lost := read(m.up.WithLabelValues("n1")), read(m.lost.WithLabelValues("n1")); v != 0 || lost != 1 {
		t.Fatalf("after the stop: corral_node_up %v, corral_node_losses_total %v", v, lost)
	}
	// Losses show from 0 as soon as a node beats.
	m.nodeBeat("n2")
	if lost := read(m.lost.WithLabelValues("n2")); lost != 0 {
		t.Fatalf("corral_node_losses_total{node=n2} = %v before any loss", lost)
	}
	var none *ClientMetrics // a CLI client measures nothing
	none.nodeBeat("n1")
	none.nodeLost("n1")
	none.nodeStopped("n1")
}
