package chart_test

import (
	"slices"
	"strings"
	"testing"
)

// TestChartRefusesContradictorySites: edge-site values that render but leave a site's NATS out of
// the hub (no password, another site's user, a role's, an external NATS no site.* reaches), a pod
// that cannot start (a password key named after another leaf user), or a hub's NATS that exits
// (its leaf port one it already listens on) stop helm template, naming the value to set
// (_sites_check.tpl). What a site may rightly give still renders.
func TestChartRefusesContradictorySites(t *testing.T) {
	site := []string{"site.name=paris", "site.hub.urls={nats-leaf://hub.example.com:7422}", "site.hub.existingSecret=hub-leaf"}
	at := func(sets ...string) []string { return append(slices.Clone(site), sets...) }
	for _, c := range []struct {
		sets []string
		want string
	}{
		{[]string{"site.name=paris", "nats.bundled.enabled=false", "nats.external.url=nats://nats:4222"},
			`site.name is "paris" but nats.bundled.enabled is false`},
		{at("site.hub.existingSecret="),
			`site.name is "paris" but site.hub.existingSecret is empty: the site's NATS would connect to the hub with no password`},
		{at("site.hub.user=leaf-tokyo", "site.hub.passwordKey=leaf-tokyo"),
			`site.hub.user is "leaf-tokyo", the leaf user of the hub's site tokyo, but this release is site paris: ` +
				`the hub lets that user act for tokyo's nodes only, so this site's never show; set site.hub.user (and site.hub.passwordKey) to leaf-paris`},
		{at("site.hub.user=admin"), `site.hub.user is "admin": the hub's leaf port takes its leaf users only`},
		{at("site.hub.user=leaf-paris"),
			`site.hub.passwordKey is "leaf", the key of the hub's user leaf, but site.hub.user is leaf-paris: set both to the user this site connects as`},
		{at("site.hub.passwordKey=leaf-paris"),
			`site.hub.passwordKey is "leaf-paris", the key of the hub's user leaf-paris, but site.hub.user is leaf`},
		{[]string{"hub.sites={tokyo}", "hub.leafnodes.port=4222"},
			"hub.leafnodes.port is 4222, as nats.bundled.ports.client: the NATS server cannot listen on one port twice"},
		{[]string{"hub.sites={tokyo}", "nats.bundled.ports.cluster=7422"}, "hub.leafnodes.port is 7422, as nats.bundled.ports.cluster"},
		{[]string{"hub.sites={tokyo}", "hub.leafnodes.port=8222"}, "hub.leafnodes.port is 8222, as nats.bundled.ports.monitor"},
	} {
		_, err := helm(t, append([]string{"template", release, chartDir(t)}, valuesCase{sets: c.sets}.args()...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--set %v: %v; want an error with %q", c.sets, err, c.want)
		}
	}

	for name, sets := range map[string][]string{
		"the shared user":           site,
		"its own user":              at("site.hub.user=leaf-paris", "site.hub.passwordKey=leaf-paris"),
		"a key of its own naming":   at("site.hub.user=leaf-paris", "site.hub.passwordKey=password"),
		"a demo hub without auth":   at("site.hub.existingSecret=", "nats.bundled.auth.enabled=false"),
		"a hub on another port":     {"hub.sites={tokyo}", "hub.leafnodes.port=7423"},
		"an external NATS, no site": {"nats.bundled.enabled=false", "nats.external.url=nats://nats:4222"},
	} {
		render(t, valuesCase{name: name, sets: sets})
	}
}
