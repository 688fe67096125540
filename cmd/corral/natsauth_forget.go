package main

import (
	"fmt"
	"strings"

	"github.com/corral-farm/corral/broker"
)

// forgetUnissued drops from users.json the passwords of the node and site users this run does
// not issue, and says which. Kept, a decommissioned node's password was handed out again when
// its id came back, so the host it ran on (and anyone who copied node-ID.json) could still log
// in. The roles every run issues, and users nats-auth does not name, keep theirs.
func forgetUnissued(secrets *broker.Secrets, issued []broker.User) error {
	kept := map[string]bool{}
	for _, u := range issued {
		kept[u.Name] = true
	}
	gone, err := secrets.Forget(func(user string) bool { return nodeOrSiteUser(user) && !kept[user] })
	if err != nil {
		return fmt.Errorf("forget the passwords of users no longer issued: %w (run nats-auth again)", err)
	}
	if len(gone) > 0 {
		fmt.Printf("Forgot the passwords of %s in %s/users.json: given with --node or --site again, each gets a new one.\n",
			strings.Join(gone, ", "), secrets.Dir())
	}
	return nil
}

// nodeOrSiteUser says whether a user name is one nats-auth makes for a node or a site
// (broker.UserName, broker.LeafUserName).
func nodeOrSiteUser(name string) bool {
	return name == string(broker.RoleNode) || strings.HasPrefix(name, string(broker.RoleNode)+"-") ||
		name == string(broker.RoleLeaf) || strings.HasPrefix(name, string(broker.RoleLeaf)+"-")
}
