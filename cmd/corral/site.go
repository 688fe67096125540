package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/redact"
)

// Edge sites (docs/operations.md, Edge sites): `corral up --site` and `corral node --site` run
// a site's NATS as a leaf node of a hub; `corral up --leaf-listen` runs a hub's, which takes
// the sites' leaf connections; a hub's gateways (--sites) aggregate the sites' stores and
// watch their links.

// siteFlags make the embedded NATS an edge site's.
type siteFlags struct {
	name, hub, hubContext *string
	of                    *flags // where --hub came from (hubSource)
}

func (f *flags) siteFlags() siteFlags {
	return siteFlags{of: f,
		name: f.String("site", "", "run the embedded NATS as edge site NAME: a JetStream domain of its own and a leaf node of the hub "+
			"(--hub); the site serves its own callers while its uplink is down (docs/operations.md, Edge sites)"),
		hub: f.commaList("hub", "", "with --site: the hub's leaf URL(s), comma-separated, e.g. nats-leaf://hub.example.com:7422 "+
			"(default: the --hub-context's)"),
		hubContext: f.String("hub-context", "", "with --site: natscli context file of the site's leaf user on the hub (user and "+
			"password, or creds; ca), as the hub's corral up --leaf-listen or corral nats-auth --site writes it"),
	}
}

// remote is the site's leaf connection to its hub; nil when this is no site. A value it
// refuses is a badValue; a --hub-context it cannot read is not.
func (s siteFlags) remote() (*embedded.LeafRemoteOptions, error) {
	if *s.name == "" {
		if *s.hub != "" || *s.hubContext != "" {
			return nil, badValue(errors.New("--hub and --hub-context are for an edge site: give --site NAME too"))
		}
		return nil, nil
	}
	if !broker.ValidSite(*s.name) {
		return nil, badValue(fmt.Errorf("--site %q: use letters, digits, '-' and '_' (it is the site's JetStream domain)", *s.name))
	}
	r := &embedded.LeafRemoteOptions{Local: broker.LeafLocal}
	hub := *s.hub
	if *s.hubContext != "" {
		c, err := broker.ReadNATSContext(*s.hubContext)
		if err != nil {
			return nil, fmt.Errorf("--hub-context: %w", err)
		}
		hub = cmp.Or(hub, c.URL)
		r.User, r.Password, r.CredsFile, r.CA = c.User, c.Password, c.Creds, c.CA
	}
	if hub == "" {
		return nil, badValue(fmt.Errorf("--site %s: name the hub: --hub nats-leaf://HUB:7422, or --hub-context FILE with its url", *s.name))
	}
	r.URLs = splitList(hub)
	if redact.HasUserinfo(*s.hub) {
		r.CredentialsFlag = s.hubSource() // the start warns, naming it: --hub, CORRAL_HUB, the config file's key
	}
	return r, nil
}

// hubSource names where --hub's value came from, as natsFlags.urlSource does --nats-url's:
// "--hub" for the command line, which other users of the machine read (ps), else CORRAL_HUB
// or the config file's key, which the warning must name instead.
func (s siteFlags) hubSource() string {
	if s.of == nil || s.of.onCommandLine["hub"] {
		return "--hub"
	}
	src := s.of.sources["hub"]
	if env, _, ok := strings.Cut(src, "="); ok && strings.HasPrefix(src, "CORRAL_") {
		return env // its value, password hidden, is the warning's url
	}
	return cmp.Or(src, "--hub")
}

// leafListenFlag adds corral up's --leaf-listen. A hub's leaf users are made from --sites as
// its NATS starts, before its stores (which keep their sites when --sites is empty) can be
// read: with --leaf-listen, --sites must name them every time, and its help says so.
func (f *flags) leafListenFlag() *string {
	if sites := f.Lookup("sites"); sites != nil {
		sites.Usage += "; with --leaf-listen, name them on every start (each site's leaf user is made as the hub starts)"
	}
	return f.String("leaf-listen", "", "run the embedded NATS as a hub: take the leaf connections of the edge sites of --sites "+
		"(named on every start) on this address, e.g. 0.0.0.0:7422 (a leaf context per site is written into --data's nats/)")
}

// hubSettings make the embedded NATS a hub's: it takes the leaf connections of sites on listen.
type hubSettings struct {
	listen string
	sites  hubSites
}

// hubSites are a hub's edge sites (--sites) and the nodes of those --site-nodes names: each
// such site's leaf user (corral up --leaf-listen) and the hub's copies of its stores are
// limited to its nodes.
type hubSites struct {
	names []string
	nodes []broker.Site
}

// unscoped are the sites whose nodes were not given, in --sites' order.
func (h hubSites) unscoped() []string {
	var out []string
	for _, name := range h.names {
		if !slices.ContainsFunc(h.nodes, func(s broker.Site) bool { return s.Name == name }) {
			out = append(out, name)
		}
	}
	return out
}

// check refuses nodes of a site that is not in --sites (badValue).
func (h hubSites) check() error {
	var errs []error
	for _, s := range h.nodes {
		if !slices.Contains(h.names, s.Name) {
			errs = append(errs, fmt.Errorf("--site-nodes %s=%s: site %s is not in --sites (%q): name it there too, or drop its --site-nodes",
				s.Name, strings.Join(s.Nodes, ","), s.Name, strings.Join(h.names, ",")))
		}
	}
	return badValue(errors.Join(errs...))
}

// siteNodesFlag is --site-nodes NAME=NODE[,NODE...], repeatable, in the form of nats-auth's
// --site (parseSiteNodes). Entries separated by ';' may share one value, as CORRAL_SITE_NODES
// (which sets it once) gives them all: a=n1,n2;b=n3. Each value is checked as it is set, with
// those set before it (a node at two sites).
type siteNodesFlag struct {
	entries []string
	sites   []broker.Site
}

func (f *siteNodesFlag) String() string { return strings.Join(f.entries, ";") }

func (f *siteNodesFlag) Set(v string) error {
	var entries []string
	for _, e := range strings.Split(v, ";") {
		if e = strings.TrimSpace(e); e != "" {
			entries = append(entries, e)
		}
	}
	if len(entries) == 0 {
		return errors.New("give a site and its nodes, NAME=NODE[,NODE...] (several: a=n1,n2;b=n3)")
	}
	all := append(slices.Clone(f.entries), entries...)
	sites, err := parseSiteNodes("--site-nodes", all)
	if err != nil {
		return err
	}
	f.entries, f.sites = all, sites
	return nil
}

// leafListen is the hub's leaf listener; nil when it takes no sites. Its refusals are badValues.
func (h hubSettings) leafListen() (*embedded.LeafListenOptions, error) {
	if h.listen == "" {
		return nil, nil
	}
	if len(h.sites.names) == 0 {
		return nil, badValue(fmt.Errorf("--leaf-listen %s: name the sites it takes with --sites a,b, on every start: each gets a leaf user "+
			"as the hub starts, before the sites its stores keep can be read", h.listen))
	}
	host, port, err := net.SplitHostPort(h.listen)
	p, perr := strconv.Atoi(port)
	if err != nil || perr != nil || p < 1 || p > 65535 {
		return nil, badValue(fmt.Errorf("--leaf-listen %q: want HOST:PORT with a port from 1 to 65535, e.g. 0.0.0.0:7422", h.listen))
	}
	return &embedded.LeafListenOptions{Host: host, Port: p}, nil
}

// checkEdge validates the edge flags of an embedded NATS: a site's, or a hub's, not both.
func checkEdge(site siteFlags, hub hubSettings) error {
	remote, err := site.remote()
	if err != nil {
		return err
	}
	listen, err := hub.leafListen()
	switch {
	case err != nil:
		return err
	case remote != nil && len(hub.sites.names) > 0:
		return badValue(errors.New("--site and --sites: a process is an edge site or its hub, not both"))
	case listen == nil && len(hub.sites.names) > 0:
		return badValue(errors.New("--sites: the hub's embedded NATS must take the sites' leaf connections: give --leaf-listen HOST:PORT too"))
	}
	return nil
}

// edgeWelcome is corral up's welcome line of a site or a hub ("" for neither).
func edgeWelcome(site siteFlags, hub hubSettings) string {
	switch {
	case *site.name != "":
		return fmt.Sprintf("  edge site      %s: a leaf node of its hub; it serves its callers here when the uplink is down (corral_leaf_up)\n", *site.name)
	case hub.listen != "":
		return fmt.Sprintf("  edge sites     %s: leaf connections on %s; hand each site its leaf-SITE.json from the NATS directory above\n",
			strings.Join(hub.sites.names, ", "), hub.listen)
	}
	return ""
}

// watchSites watches a hub's sites' links from a gateway's connection, on reg's /metrics;
// nil without --sites. The gateway's client words calls to a cut-off site with it. It warns
// once of the sites whose nodes were not given.
func watchSites(ctx context.Context, nc *nats.Conn, gf gatewayFlags, reg prometheus.Registerer, log *slog.Logger) (*broker.SiteWatch, error) {
	sites := gf.siteList()
	if len(sites.names) == 0 {
		return nil, nil
	}
	if open := sites.unscoped(); len(open) > 0 {
		log.Warn("edge sites without --site-nodes: the hub takes their registry entries, leases and events under any node id, so "+
			"such a site can write as another site's nodes or the hub's (and corral up --leaf-listen's leaf user of each takes any "+
			"node's requests); name each site's nodes with --site-nodes NAME=NODE[,NODE...] (docs/operations.md, Edge sites)",
			"sites", strings.Join(open, ","))
	}
	return broker.WatchSitesWithNodes(ctx, nc, sites.names, sites.nodes, broker.NewSiteMetrics(reg), log)
}

// splitList splits a comma-separated flag into its non-empty items.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
