package broker

import (
	"maps"

	"github.com/prometheus/client_golang/prometheus"
)

// SiteNodes shows on /metrics the nodes a hub gateway's watch knows at its edge sites, at each
// scrape (corral_site_node; none for a nil watch). A cut site's nodes are declared lost as any
// silent node (corral_node_lost), but keep their leases: the alert rules join the two on node
// and site to page for the site's link (CorralSiteDown) rather than for each node
// (deploy/prometheus/rules.yaml).
func SiteNodes(w *SiteWatch) prometheus.Collector {
	return siteNodes{w: w, desc: prometheus.NewDesc("corral_site_node",
		"1 for each node this hub gateway knows at an edge site (--site-nodes, and as the site's registry listed them): "+
			"with corral_site_up, it tells a node cut off with its site from a lost one.", []string{"site", "node"}, nil)}
}

// siteNodes is corral_site_node: which edge site each node is at, as a hub gateway knows.
type siteNodes struct {
	w    *SiteWatch
	desc *prometheus.Desc
}

func (s siteNodes) Describe(ch chan<- *prometheus.Desc) { ch <- s.desc }

func (s siteNodes) Collect(ch chan<- prometheus.Metric) {
	if s.w == nil {
		return
	}
	s.w.mu.Lock()
	nodes := maps.Clone(s.w.nodes)
	s.w.mu.Unlock()
	for node, site := range nodes {
		ch <- prometheus.MustNewConstMetric(s.desc, prometheus.GaugeValue, 1, site, node)
	}
}
