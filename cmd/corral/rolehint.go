package main

import (
	"errors"
	"fmt"

	"github.com/corral-farm/corral/broker"
)

// withRole adds, to a start that failed because NATS refused this process's user a subject,
// the role the command runs as and where that role's context is: a gateway started with the
// operator's context is told to use the gateway's.
func withRole(err error, command string, role broker.Role, node string) error {
	var r *broker.RefusedError
	if !errors.As(err, &r) || r.Stale || r.Role == role {
		return err
	}
	return fmt.Errorf("%w. corral %s runs as the %s role: give --nats-context with its context, %s.json (%s)",
		err, command, role, broker.UserName(role, node), whereContextIs(role, node))
}

// whereContextIs says what writes the context of role (of node, for the node role): corral up
// writes the node context of its own --node-id only, so another node's comes from nats-auth.
func whereContextIs(role broker.Role, node string) string {
	if role == broker.RoleNode {
		return fmt.Sprintf("corral nats-auth --node %s writes it into its --dir; corral up writes DATA/nats/%s.json only for its own --node-id",
			node, broker.UserName(role, node))
	}
	return "corral up writes it into DATA/nats/, corral nats-auth into its --dir"
}
