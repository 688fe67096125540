package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
)

// corral up --leaf-listen with the sites' nodes (CORRAL_SITE_NODES here, --site-nodes on the
// command line) makes each site's leaf user as corral nats-auth --site does: a client of site
// s1's server that listens to every node's requests hears the hub's for s1's nA, never those
// for s2's nB. Before, corral up's leaf users took every node's requests.
func TestUpLeafUserOfASiteWithNodesTakesOnlyTheirRequests(t *testing.T) {
	noNATSSettings(t)
	t.Setenv("CORRAL_SITE_NODES", "s1=nA; s2=nB")
	f := newFlags("up")
	gf := f.gatewayFlags()
	site := f.siteFlags()
	listen := f.leafListenFlag()
	require.NoError(t, f.parse([]string{"--leaf-listen", freeLoopbackAddr(t), "--sites", "s1,s2"}))
	require.NoError(t, gf.check())
	data := t.TempDir()
	log := slog.New(slog.DiscardHandler)
	hub, err := startEmbeddedNATS(data, -1, "hub1", site, hubSettings{*listen, gf.siteList()}, log)
	require.NoError(t, err)
	t.Cleanup(hub.stop)

	// Each site runs its NATS with the leaf context the hub wrote for it, as corral up --site does.
	sites := map[string]*nats.Conn{}
	for _, name := range []string{"s1", "s2"} {
		c, err := broker.ReadNATSContext(filepath.Join(data, "nats", broker.LeafUserName(name)+".json"))
		require.NoError(t, err)
		ns, err := embedded.Start(embedded.Options{Name: name, Domain: name, Port: -1, StoreDir: t.TempDir(),
			LeafRemote: &embedded.LeafRemoteOptions{URLs: []string{c.URL}, User: c.User, Password: c.Password, Local: broker.LeafLocal}}, log)
		require.NoError(t, err)
		t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
		nc, err := nats.Connect(ns.ClientURL()) // anyone at the site: its server has no users
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		sites[name] = nc
	}
	waitUntil(t, 10*time.Second, "every site joined the hub", func() bool { return hub.server.NumLeafNodes() == 2 })
	c, err := broker.ReadNATSContext(hub.contexts[broker.UserName(broker.RoleAdmin, "")])
	require.NoError(t, err)
	admin, err := nats.Connect(hub.url, nats.UserInfo(c.User, c.Password), nats.CustomInboxPrefix(c.InboxPrefix))
	require.NoError(t, err)
	t.Cleanup(admin.Close)
	requireSiteTakesOnlyItsNodesRequests(t, admin, sites["s1"], sites["s2"])
	assert.Equal(t, 2, hub.server.NumLeafNodes(), "a site's link dropped")
}

// --site-nodes and CORRAL_SITE_NODES are refused, exit 2, when they name a site that is not in
// --sites (corral gateway and corral up alike), when they are not NAME=NODE[,NODE...] (the
// form of nats-auth's --site, read by the same parser), and when they give a node twice.
func TestSiteNodesRefused(t *testing.T) {
	noNATSSettings(t)
	gw := func(args ...string) []string {
		return append([]string{"gateway", "--nats-url", "nats://127.0.0.1:1", "--check-config"}, args...)
	}
	up := func(args ...string) []string {
		return append([]string{"up", "--leaf-listen", "127.0.0.1:7422", "--check-config"}, args...)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{gw("--sites", "a", "--site-nodes", "b=n1"), "--site-nodes b=n1: site b is not in --sites (\"a\")"},
		{gw("--site-nodes", "a=n1"), "--site-nodes a=n1: site a is not in --sites"},
		{up("--sites", "a,b", "--site-nodes", "a=n1", "--site-nodes", "c=n2"), "--site-nodes c=n2: site c is not in --sites (\"a,b\")"},
		{gw("--sites", "a", "--site-nodes", "a="), `--site-nodes "a=": name the site's nodes`},
		{gw("--sites", "a", "--site-nodes", "a"), `--site-nodes "a": name the site's nodes`},
		{gw("--sites", "a,b", "--site-nodes", "a=n1", "--site-nodes", "b=n1"), "node n1 is at site a too"},
		// A node given twice for its site is a slip (the chart refuses it too), not taken silently.
		{gw("--sites", "a", "--site-nodes", "a=n1,n1"), `--site-nodes "a=n1,n1": node n1 is given twice for site a: give each node once`},
		{gw("--sites", "a", "--site-nodes", "a=n1", "--site-nodes", "a=n2, n1"), `--site-nodes "a=n2, n1": node n1 is given twice for site a`},
		{up("--sites", "a", "--site-nodes", "a=n1;a=n1"), `--site-nodes "a=n1": node n1 is given twice for site a`},
		{gw("--sites", "a", "--site-nodes", "a=n 1"), `node "n 1"`},
		{up("--sites", "a", "--site-nodes", ";"), "give a site and its nodes"},
	} {
		var code int
		out := captureOutput(t, func() { code = realMain(c.args) })
		assert.Equal(t, 2, code, "corral %s: %s", strings.Join(c.args, " "), out)
		assert.Contains(t, out, c.want, "corral %s", strings.Join(c.args, " "))
	}

	t.Setenv("CORRAL_SITE_NODES", "a=n1;b=n2")
	var code int
	out := captureOutput(t, func() { code = realMain(gw("--sites", "a")) })
	assert.Equal(t, 2, code, out)
	assert.Contains(t, out, "--site-nodes b=n2: site b is not in --sites")
	assert.Contains(t, out, "came from CORRAL_SITE_NODES")

	// Given right, both commands take it.
	out = captureOutput(t, func() { code = realMain(gw("--sites", "a,b")) })
	assert.Equal(t, 0, code, out)
	out = captureOutput(t, func() { code = realMain(up("--sites", "a,b", "--data", t.TempDir())) })
	assert.Equal(t, 0, code, out)
}

// hubSites names the sites a hub was given no nodes of, for its start's warning.
func TestHubSitesWithoutNodes(t *testing.T) {
	f := newFlags("gateway")
	gf := f.gatewayFlags()
	require.NoError(t, f.parse([]string{"--sites", "a,b,c", "--site-nodes", "b=n1,n2"}))
	hs := gf.siteList()
	assert.Equal(t, []string{"a", "c"}, hs.unscoped())
	assert.Equal(t, []broker.Site{{Name: "b", Nodes: []string{"n1", "n2"}}}, hs.nodes)
}

// A hub's gateway warns once at its start of the sites it was given no nodes of, naming them
// and the flag that limits them; none when every site has its nodes.
func TestHubWarnsOfSitesWithoutNodes(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := nats.Connect(ns.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	for _, c := range []struct {
		args []string
		warn string // "" for none
	}{
		{[]string{"--sites", "a,b,c", "--site-nodes", "b=n1,n2"}, "sites=a,c"},
		{[]string{"--sites", "a,b", "--site-nodes", "a=n1;b=n2"}, ""},
	} {
		f := newFlags("gateway")
		gf := f.gatewayFlags()
		require.NoError(t, f.parse(c.args))
		logs := &logtest.Buffer{}
		w, err := watchSites(t.Context(), nc, gf, prometheus.NewRegistry(), slog.New(slog.NewTextHandler(logs, nil)))
		require.NoError(t, err)
		require.NotNil(t, w)
		warns := strings.Count(logs.String(), "level=WARN")
		if c.warn == "" {
			assert.Zero(t, warns, "%v: %s", c.args, logs)
			continue
		}
		assert.Equal(t, 1, warns, "%v: %s", c.args, logs)
		line := logs.Line("edge sites without --site-nodes")
		assert.Contains(t, line, c.warn, c.args)
		assert.Contains(t, line, "--site-nodes NAME=NODE", c.args)
	}
	// The watch places a node of --site-nodes at its site before any site's registry is read.
	f := newFlags("gateway")
	gf := f.gatewayFlags()
	require.NoError(t, f.parse([]string{"--sites", "a", "--site-nodes", "a=n1"}))
	w, err := watchSites(t.Context(), nc, gf, prometheus.NewRegistry(), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	at, ok := w.SiteOf("n1")
	assert.True(t, ok)
	assert.Equal(t, "a", at)
}

// --site-nodes takes what it can read back: a value it accepts names valid sites and nodes, no
// node at two sites, and its String sets a fresh flag to the same sites.
func FuzzSiteNodesFlag(f *testing.F) {
	for _, seed := range []string{"a=n1,n2;b=n3", "a=n1", "a=", "=n1", "*=n1", "a=n1;a=n2", "a=n1;b=n1", " a = n1 ; ", ";;", "a=n 1"} {
		f.Add(seed, "b=n9")
	}
	f.Fuzz(func(t *testing.T, first, second string) {
		var flag siteNodesFlag
		if flag.Set(first) != nil {
			return
		}
		_ = flag.Set(second) // refused or not, what was accepted stays
		seen := map[string]bool{}
		for _, s := range flag.sites {
			require.True(t, broker.ValidSite(s.Name), "site %q", s.Name)
			for _, n := range s.Nodes {
				require.False(t, seen[n], "node %q at two sites: %v", n, flag.sites)
				seen[n] = true
				_, err := broker.LeafPermissions(s.Name, n)
				require.NoError(t, err)
			}
		}
		var again siteNodesFlag
		require.NoError(t, again.Set(flag.String()))
		require.Equal(t, flag.sites, again.sites)
	})
}

// configFile writes a --config file holding body.
func configFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "corral.yaml")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
	return p
}

// A --config file gives --site-nodes as one text (a=n1,n2;b=n3), as a list of NAME=NODE[,NODE...]
// items, or as a set of keys, NAME: [NODE, ...] or NAME: NODE[,NODE...]: each reads as the same
// sites. Before, a list or a set of keys reached the flag as Go printed it ("[a=n1,n2 b=n3]")
// and was refused in words about a site named "[a".
func TestSiteNodesFromAConfigFile(t *testing.T) {
	noNATSSettings(t)
	want := []broker.Site{{Name: "a", Nodes: []string{"n1", "n2"}}, {Name: "b", Nodes: []string{"n3"}}}
	for _, body := range []string{
		`site-nodes: "a=n1,n2;b=n3"`,
		`site-nodes: ["a=n1,n2", "b=n3"]`,
		"site-nodes:\n  - a=n1\n  - b=n3\n  - a=n2",
		"site-nodes: {b: n3, a: [n1, n2]}",
		"site-nodes:\n  a: n1,n2\n  b: [n3]",
	} {
		f := newFlags("gateway")
		gf := f.gatewayFlags()
		require.NoError(t, f.parse([]string{"--config", configFile(t, "sites: a,b\n"+body+"\n")}), body)
		assert.Equal(t, want, gf.siteList().nodes, body)
		require.NoError(t, gf.check(), body)
	}

	// nats-auth's repeatable flags take a list too.
	f := newFlags("nats-auth")
	var sites multiFlag
	f.Var(&sites, "site", "")
	require.NoError(t, f.parse([]string{"--config", configFile(t, "site: [a=n1, b=n2]\n")}))
	assert.Equal(t, multiFlag{"a=n1", "b=n2"}, sites)

	// corral gateway runs with it, and names the file when a site of it is not in --sites.
	gw := func(args ...string) []string {
		return append([]string{"gateway", "--nats-url", "nats://127.0.0.1:1", "--check-config"}, args...)
	}
	var code int
	out := captureOutput(t, func() {
		code = realMain(gw("--config", configFile(t, "sites: a,b\nsite-nodes: {a: [n1, n2], b: [n3]}\n")))
	})
	assert.Equal(t, 0, code, out)
	file := configFile(t, "sites: a\nsite-nodes: [a=n1, b=n2]\n")
	out = captureOutput(t, func() { code = realMain(gw("--config", file)) })
	assert.Equal(t, 2, code, out)
	assert.Contains(t, out, "--site-nodes b=n2: site b is not in --sites")
	assert.Contains(t, out, "came from key site-nodes of the config file "+file)
}

// A --config value of a shape its flag does not take is refused, exit 2, saying what was wrong
// and where: the item or key of a list or set of keys, a list for a flag of one value, nothing
// (null) for any flag, which before set the flag to "<nil>".
func TestConfigFileShapesRefused(t *testing.T) {
	noNATSSettings(t)
	for _, c := range []struct{ body, want string }{
		{`site-nodes: ["a=n1", "b=n1"]`, `site-nodes: item 2: "b=n1": --site-nodes "b=n1": node n1 is at site a too`},
		{"site-nodes: {a: [n1], b: [n1]}", `site-nodes: key b: "b=n1": --site-nodes "b=n1": node n1 is at site a too`},
		{"site-nodes: {a: []}", `site-nodes: key a: "a=": --site-nodes "a=": name the site's nodes`},
		{"site-nodes: {a: }", `site-nodes: key a: "a=": --site-nodes "a=": name the site's nodes`},
		{"site-nodes: [a=n1, c]", `site-nodes: item 2: "c": --site-nodes "c": name the site's nodes`},
		{"site-nodes: [a=n1,n2, b=n3]", `site-nodes: item 2: "n2": --site-nodes "n2": name the site's nodes, --site-nodes n2=NODE[,NODE...]: ` +
			`its leaf user takes requests for, and speaks as, those nodes only (docs/operations.md, Edge sites) (quote an item that holds a comma: ["a=n1,n2"])`},
		{"site-nodes: [[a, n1]]", "site-nodes: item 1: a list in a list: write each item as one value"},
		{"site-nodes: [{a: n1}]", "site-nodes: item 1: a set of keys in a list"},
		{"site-nodes: [a=n1, null]", "site-nodes: item 2: empty (null)"},
		{"site-nodes: {a: [[n1]]}", "site-nodes: key a: item 1: a list in a list"},
		{"site-nodes: []", "site-nodes: an empty list: give an item, or leave the key out"},
		{"site-nodes: {}", "site-nodes: an empty set of keys"},
		{"site-nodes:", "site-nodes: no value: write one, or leave the key out"},
		{"http:", "http: no value: write one, or leave the key out"},
		{"http: [a, b]", "http: a list, and --http takes one value: write it as the command line takes it"},
		{"http: {a: [n1]}", "http: a set of keys, and --http takes one value"},
	} {
		file := configFile(t, "sites: a,b,c\n"+c.body+"\n")
		if strings.HasPrefix(c.body, "sites:") {
			file = configFile(t, c.body+"\n")
		}
		var code int
		out := captureOutput(t, func() {
			code = realMain([]string{"gateway", "--nats-url", "nats://127.0.0.1:1", "--check-config", "--config", file})
		})
		assert.Equal(t, 2, code, "%s: %s", c.body, out)
		assert.Contains(t, out, "config "+file+": "+c.want, c.body)
	}
}
