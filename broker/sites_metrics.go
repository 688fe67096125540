package broker

import "github.com/prometheus/client_golang/prometheus"

// SiteMetrics show a hub gateway's links to its edge sites. A nil *SiteMetrics measures nothing.
type SiteMetrics struct {
	up         *prometheus.GaugeVec
	reconnects *prometheus.CounterVec
	restores   *prometheus.CounterVec
}

// NewSiteMetrics registers the sites' metrics with reg.
func NewSiteMetrics(reg prometheus.Registerer) *SiteMetrics {
	m := &SiteMetrics{
		up: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "corral_site_up",
			Help: "1 while this hub gateway reaches an edge site's JetStream over its leaf link, 0 while the link is down."}, []string{"site"}),
		reconnects: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_site_reconnects_total",
			Help: "Times an edge site's leaf link came back after this hub gateway saw it up, then down (its first link-up is not one)."}, []string{"site"}),
		restores: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_site_entries_restored_total",
			Help: "Registry and lease entries this hub gateway restored from an edge site after its link came back (marked offline or dropped during the cut)."}, []string{"site"}),
	}
	reg.MustRegister(m.up, m.reconnects, m.restores)
	return m
}

// know makes a site's series visible at zero.
func (m *SiteMetrics) know(site string) {
	if m != nil {
		m.up.WithLabelValues(site)
		m.reconnects.WithLabelValues(site)
		m.restores.WithLabelValues(site)
	}
}

func (m *SiteMetrics) setUp(site string, up bool) {
	if m != nil {
		v := 0.0
		if up {
			v = 1
		}
		m.up.WithLabelValues(site).Set(v)
	}
}

func (m *SiteMetrics) reconnected(site string) {
	if m != nil {
		m.reconnects.WithLabelValues(site).Inc()
	}
}

func (m *SiteMetrics) restored(site string, n int) {
	if m != nil && n > 0 {
		m.restores.WithLabelValues(site).Add(float64(n))
	}
}
