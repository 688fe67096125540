package mcp

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/mcp/console"
)

// console returns the device wall (package console) the gateway serves at /, and the registry
// of its metrics, which /metrics serves beside the others. It sees the farm as the front door
// does: the same policy, whose tag rules choose the devices each principal sees; without a
// policy everyone is anonymous, as on /mcp. Its refusals count in corral_gateway_denied_total.
func (g *Gateway) console() (http.Handler, prometheus.Gatherer) {
	reg := prometheus.NewRegistry()
	cfg := console.Config{Farm: g.farm, Log: g.log.With("component", "console"), Metrics: console.NewMetrics(reg)}
	if h, ok := g.farm.(console.History); ok {
		cfg.History = h
	}
	if s, ok := g.farm.(console.Screens); ok {
		cfg.Screens = s
	}
	if pol := g.opts.Policy; pol != nil {
		cfg.Authenticate = func(token string) (console.Viewer, bool) {
			p := pol.authenticate(token)
			if p == nil {
				return console.Viewer{}, false
			}
			return viewerOf(p), true
		}
		cfg.Denied = g.metrics.deny
	}
	return console.New(cfg), reg
}

// viewerOf is the console's view of a principal: its tag rule, and whether it may change
// devices at all (acquire_device: every tool that changes a device needs it held or free).
func viewerOf(p *Principal) console.Viewer {
	return console.Viewer{Name: p.Name, Tags: p.Tags, MayUse: p.MayUse, MayAct: p.MayCall("acquire_device")}
}
