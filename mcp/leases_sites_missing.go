package mcp

import (
	"slices"

	"github.com/corral-farm/corral/broker"
)

// Just after an edge site's link heals, the hub hears the site's nodes again, and a list
// gathered from every node has their leases, before its view of the link catches up: a hub
// gateway's probes of the site, or the stores' sources the command line reads, take up to
// seconds. A list then named the site as not listed while it listed its leases. The note names
// only the down sites whose leases this answer really lacks.

// siteMap is a Farm that knows which edge site a node is at (broker.Client at a hub gateway,
// from its site watch).
type siteMap interface {
	SiteOf(node string) (string, bool)
}

// nodeLister is a Farm that names the nodes it hears, sorted: those an answer from every node
// asks (broker.Client).
type nodeLister interface {
	Nodes() []string
}

// nodesHeard are the nodes farm hears now, read just before it gathers an answer from every
// node; nil when it cannot say.
func nodesHeard(farm Farm) []string {
	if l, ok := farmAs[nodeLister](farm); ok {
		return l.Nodes()
	}
	return nil
}

// sitesMissing are the sites of down whose leases an answer from every node lacks: not a site
// one of whose nodes answered (a holder in leases, where farm knows the node's site), and none
// when no node is missing at all: every node of the registry was asked (heard, read just
// before the answer; nil: not known) and none failed (partial).
func sitesMissing(farm Farm, down []string, leases []broker.Lease, heard []string, partial *broker.PartialError) []string {
	if len(down) == 0 {
		return nil
	}
	if heard != nil && partial == nil && !slices.ContainsFunc(farm.Devices(), func(d broker.DeviceEntry) bool {
		_, found := slices.BinarySearch(heard, d.Node)
		return !found
	}) {
		return nil
	}
	sites, ok := farmAs[siteMap](farm)
	if !ok {
		return down
	}
	answered := map[string]bool{}
	for _, l := range leases {
		if site, ok := sites.SiteOf(l.Node); ok {
			answered[site] = true
		}
	}
	return slices.DeleteFunc(slices.Clone(down), func(site string) bool { return answered[site] })
}
