package chart_test

import (
	"strings"
	"testing"
)

// TestChartRefusesMoreStoreReplicasThanServers: nats.storeReplicas above the bundled NATS's
// servers rendered and passed kubeconform, and the gateways then exited at start ("replicas > 1
// not supported in non-clustered mode"); helm refuses it, naming both values. As many as the
// servers, or 0, render.
func TestChartRefusesMoreStoreReplicasThanServers(t *testing.T) {
	for _, sets := range [][]string{
		{"nats.bundled.replicas=1", "nats.storeReplicas=3"},
		{"nats.bundled.replicas=3", "nats.storeReplicas=5"},
	} {
		_, err := helm(t, append([]string{"template", release, chartDir(t)}, valuesCase{sets: sets}.args()...)...)
		if err == nil || !strings.Contains(err.Error(), "nats.storeReplicas is") || !strings.Contains(err.Error(), "nats.bundled.replicas is") {
			t.Errorf("--set %v: %v; want a refusal naming nats.storeReplicas and nats.bundled.replicas", sets, err)
		}
	}
	for _, c := range []struct {
		sets []string
		want string
	}{
		{[]string{"nats.bundled.replicas=1", "nats.storeReplicas=1"}, "1"},
		{[]string{"nats.bundled.replicas=1"}, "1"},
		{[]string{"nats.bundled.replicas=5", "nats.storeReplicas=5"}, "5"},
		// An external NATS's size is unknown here: the value goes to the gateways as given.
		{[]string{"nats.bundled.enabled=false", "nats.external.url=nats://nats.nats.svc:4222", "nats.storeReplicas=3"}, "3"},
	} {
		_, _, gw := gateway(t, render(t, valuesCase{name: strings.Join(c.sets, " "), sets: c.sets}))
		if vars, _ := env(gw); vars["CORRAL_NATS_REPLICAS"] != c.want {
			t.Errorf("--set %v: CORRAL_NATS_REPLICAS=%q, want %s", c.sets, vars["CORRAL_NATS_REPLICAS"], c.want)
		}
	}
}
