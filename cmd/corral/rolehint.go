package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

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

// cliRoles are the roles whose context each command that reads or acts on the farm through
// NATS runs with (docs/operations.md, NATS roles): an operator reads, an admin also acts.
var cliRoles = map[string][]broker.Role{
	"devices": {broker.RoleOperator, broker.RoleAdmin},
	"leases":  {broker.RoleOperator, broker.RoleAdmin},
	"tasks":   {broker.RoleOperator, broker.RoleAdmin},
	"call":    {broker.RoleAdmin}, "run": {broker.RoleAdmin}, "mcp-stdio": {broker.RoleAdmin},
	"abort": {broker.RoleAdmin}, "release": {broker.RoleAdmin}, "drain": {broker.RoleAdmin},
	"devices forget": {broker.RoleAdmin},
}

// cliCommand is the command of cliRoles that args run under command name: its subcommand
// when it has roles of its own (corral devices forget), else name.
func cliCommand(name string, args []string) string {
	if len(args) > 0 {
		if _, ok := cliRoles[name+" "+args[0]]; ok {
			return name + " " + args[0]
		}
	}
	return name
}

// withCLIRole adds, to a command refused a subject because its NATS context is another
// role's (a node's, the vision workers', an operator's for an action), the contexts that
// command takes, as withRole does for corral gateway and corral node: the refusal's "use the
// NATS context of a role that may" named none.
func withCLIRole(err error, command string) error {
	roles, ok := cliRoles[command]
	var r *broker.RefusedError
	if !ok || !errors.As(err, &r) || r.Stale || slices.Contains(roles, r.Role) {
		return err
	}
	names, files := make([]string, len(roles)), make([]string, len(roles))
	for i, role := range roles {
		names[i], files[i] = string(role), broker.UserName(role, "")+".json"
	}
	return fmt.Errorf("%w. corral %s runs as the %s role: give --nats-context with its context, %s (%s)",
		err, command, strings.Join(names, " or "), strings.Join(files, " or "), whereContextIs(roles[0], ""))
}
