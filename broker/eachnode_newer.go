package broker

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// A node upgraded ahead of the gateways beats in a newer wire version (liveness_version.go).
// Asking it for every node's leases or aborts only gets an answer this Corral refuses, after a
// round trip per call; so eachNode asks it nothing, and the answer says once which nodes were
// left out and why, rather than leaving them out silently.

// newerBeats are the nodes whose latest heartbeat is of a newer wire version (node → version).
type newerBeats struct {
	mu    sync.Mutex
	nodes map[string]int
}

// saw records node's beat of wire version v: newer, or this version's again after a downgrade.
func (n *newerBeats) saw(node string, v int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !newerWire(v) {
		delete(n.nodes, node)
		return
	}
	if n.nodes == nil {
		n.nodes = map[string]int{}
	}
	n.nodes[node] = v
}

// of is the version of node's latest beat when it is newer, or 0.
func (n *newerBeats) of(node string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.nodes[node]
}

// NewerNodesError says which nodes a gathering from every node did not ask, as they speak a
// newer wire version (node → version): what they hold is left out of the answer.
type NewerNodesError struct {
	Nodes map[string]int
}

func (e *NewerNodesError) Error() string {
	names := slices.Sorted(maps.Keys(e.Nodes))
	var which []string
	for _, n := range names {
		which = append(which, fmt.Sprintf("%s (wire version %d)", n, e.Nodes[n]))
	}
	noun := "node"
	if len(names) > 1 {
		noun = "nodes"
	}
	return fmt.Sprintf("%s %s not asked: newer than this gateway's wire version %d, so their answers would be refused; upgrade the gateway (and corral CLI) to their version",
		noun, strings.Join(which, ", "), WireVersion)
}

// newerErr is the NewerNodesError of skipped, nil when none was.
func newerErr(skipped map[string]int) error {
	if len(skipped) == 0 {
		return nil
	}
	return &NewerNodesError{Nodes: skipped}
}
