package broker

import (
	"fmt"
	"strconv"
	"strings"
)

// ServerAuthConfig renders the users of a farm as a nats-server configuration block
// (authorization { users = [...] }), each with its role's permissions, for a standalone
// nats-server: `include` it from the server's config, or start the server with it.
func ServerAuthConfig(users []User) (string, error) { return authConfig(users, User.Permissions) }

// authConfig renders users with the permissions perms gives each.
func authConfig(users []User, perms func(User) (Permissions, error)) (string, error) {
	var b strings.Builder
	b.WriteString("# Corral's NATS users, one per role (docs/operations.md, NATS roles). Made by corral nats-auth.\nauthorization {\n  users = [\n")
	for _, u := range users {
		p, err := perms(u)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "    {\n      user: %s\n      password: %s\n      permissions: {\n", strconv.Quote(u.Name), strconv.Quote(u.Password))
		list := func(name string, allow, deny []string) {
			if len(allow) == 0 && len(deny) == 0 {
				return
			}
			fmt.Fprintf(&b, "        %s: {\n", name)
			for _, l := range []struct {
				key  string
				subj []string
			}{{"allow", allow}, {"deny", deny}} {
				if len(l.subj) == 0 {
					continue
				}
				q := make([]string, len(l.subj))
				for i, s := range l.subj {
					q[i] = strconv.Quote(s)
				}
				fmt.Fprintf(&b, "          %s: [%s]\n", l.key, strings.Join(q, ", "))
			}
			b.WriteString("        }\n")
		}
		list("publish", p.PublishAllow, p.PublishDeny)
		list("subscribe", p.SubscribeAllow, p.SubscribeDeny)
		switch {
		case p.AllowResponses && p.ResponseWindow > 0:
			fmt.Fprintf(&b, "        allow_responses: {max: 1, expires: %q}\n", p.ResponseWindow.String())
		case p.AllowResponses:
			b.WriteString("        allow_responses: true\n")
		}
		b.WriteString("      }\n")
		if u.Role == RoleLeaf { // a site's server, never a client (leaf.go)
			b.WriteString("      allowed_connection_types: [\"LEAFNODE\"]\n")
		}
		b.WriteString("    }\n")
	}
	b.WriteString("  ]\n}\n")
	return b.String(), nil
}
