package broker

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// A node is up from its first heartbeat until it is declared lost, and up again when it beats.
// It is lost (corral_node_lost 1) from the verdict until it beats; one that said it stopped is
// down but not lost.
func TestNodeUp(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewClientMetrics(reg)
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
	if gone := read(m.gone.WithLabelValues("n1")); gone != 1 {
		t.Fatalf("corral_node_lost{node=n1} = %v after the loss", gone)
	}
	m.nodeBeat("n1")
	if v, gone := read(m.up.WithLabelValues("n1")), read(m.gone.WithLabelValues("n1")); v != 1 || gone != 0 {
		t.Fatalf("after the node came back: corral_node_up %v, corral_node_lost %v", v, gone)
	}
	// A node that said it stopped is down, not lost, and no loss is counted: restarts are not
	// flaps. (A lost node's down event is not read: Liveness.Stopped.)
	m.nodeStopped("n1")
	if v, lost, gone := read(m.up.WithLabelValues("n1")), read(m.lost.WithLabelValues("n1")), read(m.gone.WithLabelValues("n1")); v != 0 || lost != 1 || gone != 0 {
		t.Fatalf("after the stop: corral_node_up %v, corral_node_losses_total %v, corral_node_lost %v", v, lost, gone)
	}
	// Losses show from 0 as soon as a node beats.
	m.nodeBeat("n2")
	if lost := read(m.lost.WithLabelValues("n2")); lost != 0 {
		t.Fatalf("corral_node_losses_total{node=n2} = %v before any loss", lost)
	}
	// and corral_node_lost shows 0 (an alert's series, there before any loss).
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	shown := false
	for _, mf := range mfs {
		for _, s := range mf.GetMetric() {
			if mf.GetName() == "corral_node_lost" && s.GetLabel()[0].GetValue() == "n2" {
				shown = s.GetGauge().GetValue() == 0
			}
		}
	}
	if !shown {
		t.Fatal("corral_node_lost{node=n2} is not shown at 0 from the node's first heartbeat")
	}
	var none *ClientMetrics // a CLI client measures nothing
	none.nodeBeat("n1")
	none.nodeLost("n1")
	none.nodeStopped("n1")
}
