package broker_test

import (
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A hub gateway shows which edge site each of the sites' nodes is at (corral_site_node), the
// series the alert rules join corral_node_lost and corral_site_up with, so that a site's cut
// pages once for the site and not as its nodes lost (deploy/prometheus/rules.yaml). A node at
// the hub is at no site.
func TestSiteNodesShowEachSitesNodes(t *testing.T) {
	h := farmtest.StartHub(t, farmtest.HubOptions{Sites: map[string][]string{"paris": {"n1"}, "lyon": {"n2"}}, HubNodes: []string{"n3"},
		PhonesPerNode: 1, Quiet: true})
	reg := prometheus.NewRegistry()
	reg.MustRegister(broker.SiteNodes(h.Gateway().Sites))
	want := []string{"lyon n2", "paris n1"}
	var got []string
	farmtest.Eventually(t, waitLong, func() bool {
		got = siteNodeSeries(t, reg)
		return slices.Equal(got, want)
	}, "corral_site_node shows %v (last: %v)", want, &got)

	empty := prometheus.NewRegistry()
	empty.MustRegister(broker.SiteNodes(nil)) // a gateway without --sites
	require.Empty(t, siteNodeSeries(t, empty))
}

// siteNodeSeries are reg's corral_site_node series of value 1, as "site node", sorted.
func siteNodeSeries(t *testing.T, reg prometheus.Gatherer) []string {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	var out []string
	for _, mf := range mfs {
		if mf.GetName() != "corral_site_node" {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if m.GetGauge().GetValue() == 1 {
				out = append(out, labels["site"]+" "+labels["node"])
			}
		}
	}
	slices.Sort(out)
	return out
}
