package broker

import (
	"context"
	"slices"
	"sort"
	"time"
)

// A gateway holds which nodes are lost in memory, from the losses it declared: one started
// while a node was lost heard no loss, so it showed none (corral_node_lost), and CorralNodeLost
// resolved when the gateways restarted while `corral devices` still showed the node's devices
// offline, lost. Once it has read the registry, a starting gateway shows lost again each node
// whose entries are all offline and were written so by a gateway's loss verdict (DeclaredLost),
// unless it hears the node beat within its time to (lostAfter). corral devices forget removes
// those entries and clears the series as for a loss this gateway declared (node_forgotten.go).

// showLostAtStart shows the nodes the registry says are lost, once it is read and every node
// has had its time to beat.
func (c *Client) showLostAtStart(ctx context.Context) {
	if c.opts.Metrics == nil || c.WaitReady(ctx) != nil {
		return
	}
	select {
	case <-ctx.Done():
		return
	case <-time.After(c.live.lostAfter + checkEvery):
	}
	alive := c.live.Alive()
	for _, node := range c.lostInRegistry() {
		if slices.Contains(alive, node) {
			continue
		}
		c.log.Info("node lost before this gateway started, as the registry says: shown lost until it beats or is forgotten", "node", node)
		c.opts.Metrics.nodeLostBefore(node)
		if slices.Contains(c.live.Alive(), node) {
			c.opts.Metrics.nodeBeat(node) // it beat meanwhile: its beat may have been counted first
		}
	}
}

// lostInRegistry lists, sorted, the nodes whose registry entries are all offline and at least
// one of them a loss verdict's (DeclaredLost).
func (c *Client) lostInRegistry() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	lost := map[string]bool{}
	for _, e := range c.devices {
		switch {
		case e.State != StateOffline:
			lost[e.Node] = false // the node wrote it since: it was back
		case DeclaredLost(e.DeviceEntry):
			if _, seen := lost[e.Node]; !seen {
				lost[e.Node] = true
			}
		}
	}
	var out []string
	for node, ok := range lost {
		if ok {
			out = append(out, node)
		}
	}
	sort.Strings(out)
	return out
}
