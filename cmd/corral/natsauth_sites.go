package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes"
)

// parseSites reads nats-auth's --site flags, NAME=NODE[,NODE...] each: a site's leaf user takes
// requests for, and sends heartbeats and answers as, the nodes named with it only (a leaf user
// without them took every node's requests: broker.LeafPermissions). A site given twice has the
// nodes of both; a node may be at one site only, and be given once.
func parseSites(flags []string) ([]broker.Site, error) { return parseSiteNodes("--site", flags) }

// parseSiteNodes reads the values of flag, NAME=NODE[,NODE...] each: nats-auth's --site, and
// the hub's --site-nodes (corral gateway, corral up), which take the same form.
func parseSiteNodes(flag string, values []string) ([]broker.Site, error) {
	var sites []broker.Site
	var errs []error
	at := map[string]string{} // node id → its site
	for _, f := range values {
		name, list, ok := strings.Cut(f, "=")
		switch {
		case name == broker.AnyNode:
			errs = append(errs, fmt.Errorf("%s %q: a leaf user shared by every site would take every site's requests; "+
				"give each site with its nodes, %s NAME=NODE[,NODE...] (docs/operations.md, Edge sites)", flag, f, flag))
			continue
		case !broker.ValidSite(name):
			errs = append(errs, fmt.Errorf("%s %q: use NAME=NODE[,NODE...]; the name takes letters, digits, '-' and '_' (it is the site's JetStream domain)", flag, f))
			continue
		case !ok || strings.TrimSpace(list) == "":
			errs = append(errs, fmt.Errorf("%s %q: name the site's nodes, %s %s=NODE[,NODE...]: its leaf user takes requests for, "+
				"and speaks as, those nodes only (docs/operations.md, Edge sites)", flag, f, flag, name))
			continue
		}
		i := slices.IndexFunc(sites, func(s broker.Site) bool { return s.Name == name })
		if i < 0 {
			sites, i = append(sites, broker.Site{Name: name}), len(sites)
		}
		for _, n := range strings.Split(list, ",") {
			n = strings.TrimSpace(n)
			if n == broker.AnyNode || !nodes.ValidID(n) {
				errs = append(errs, fmt.Errorf("%s %q: node %q: use letters, digits, '-' and '_' (a node's --node-id), one by one", flag, f, n))
				continue
			}
			switch other, seen := at[n]; {
			case seen && other != name:
				errs = append(errs, fmt.Errorf("%s %q: node %s is at site %s too: a node id is unique in the farm", flag, f, n, other))
				continue
			case seen: // a slip, which the chart's hub.sites refuses too: the list is the site's whole
				errs = append(errs, fmt.Errorf("%s %q: node %s is given twice for site %s: give each node once", flag, f, n, name))
				continue
			}
			at[n] = name
			sites[i].Nodes = append(sites[i].Nodes, n)
		}
	}
	return sites, errors.Join(errs...)
}

// nodeAtHubAndSite refuses a node id given both as a hub's node (--node) and as a site's: the
// two would run side by side under one id, and the hub's node deletes the hub's copies of the
// site node's entries as its own. Node ids are unique in the whole farm; with --node '*' (one
// user for every node) that is the operator's to keep.
func nodeAtHubAndSite(hubNodes []string, sites []broker.Site) error {
	var errs []error
	for _, n := range hubNodes {
		for _, s := range sites {
			if slices.Contains(s.Nodes, n) {
				errs = append(errs, fmt.Errorf("--node %s and --site %s=%s: node %s would be both the hub's and site %s's; "+
					"a node id is unique in the whole farm: give it once, with --site if the node runs at the site, with --node if at the hub",
					n, s.Name, strings.Join(s.Nodes, ","), n, s.Name))
			}
		}
	}
	return errors.Join(errs...)
}
