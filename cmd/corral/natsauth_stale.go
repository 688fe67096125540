package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/corral-farm/corral/broker"
)

// unissuedPatterns match the files nats-auth writes for a node's or a site's user: a node's
// context (node-ID.json; node.json for the shared user), a site's (leaf-NAME.json) and its
// leafnodes block (leaf-NAME-remote.conf).
var unissuedPatterns = []string{"node.json", "node-*.json", "leaf.json", "leaf-*.json", "leaf-*-remote.conf"}

// removeUnissued removes from dir the files of node and site users that an earlier run wrote
// and this one, issuing users, no longer does, and returns their paths. Left behind, a
// decommissioned node's node-ID.json, its password in it, looked issued, though the server's
// configuration has no such user any more.
func removeUnissued(dir string, issued []broker.User) ([]string, error) {
	kept := map[string]bool{}
	for _, u := range issued {
		kept[u.Name+".json"] = true
		if u.Role == broker.RoleLeaf {
			kept[u.Name+"-remote.conf"] = true
		}
	}
	var removed []string
	var errs []error
	for _, pattern := range unissuedPatterns {
		paths, _ := filepath.Glob(filepath.Join(dir, pattern)) // the patterns are well formed
		for _, p := range paths {
			if kept[filepath.Base(p)] || slices.Contains(removed, p) {
				continue
			}
			if err := os.Remove(p); err != nil {
				errs = append(errs, fmt.Errorf("%w (remove it by hand: no user of this configuration is its)", err))
				continue
			}
			removed = append(removed, p)
		}
	}
	return removed, errors.Join(errs...)
}

// sayRemoved tells what removeUnissued removed, and what else to do for the users gone.
func sayRemoved(removed []string) {
	if len(removed) == 0 {
		return
	}
	fmt.Println("Removed the files of node and site users no longer issued (not given with --node or --site this time); " +
		"nats-server refuses those users once it is reloaded with the new configuration:")
	for _, p := range removed {
		fmt.Println("  " + p)
	}
}
