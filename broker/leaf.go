package broker

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Edge sites. A site runs its own NATS server as a leaf node of the hub's, in a JetStream
// domain named after the site: its nodes write their registry, leases and task records into
// the site's stores, which keep working while the uplink is down; the hub's stores source
// them (StoreOptions.Sites) and catch up when the link heals. Core NATS crosses the link:
// gateways at the hub call a site's nodes, and hear their heartbeats and progress.
//
// The link carries only what a site and the hub must exchange. Subjects that both the site's
// and the hub's own streams listen on never cross it (LeafLocal): a
// task record written at a site is stored there once and reaches the hub through the source,
// never twice; and a hub gateway's verdict that a site's node is lost, which the site cannot
// contradict while cut off, stays at the hub: the node keeps its leases (sites.go says how the
// hub's view heals).

// RoleLeaf is the NATS user a site's server connects to the hub's leaf port with. It is not
// one of Roles: no client connects with it.
const RoleLeaf Role = "leaf"

// LeafUserName is the hub's leaf user of a site: leaf-<site>, or leaf for AnyNode (one user
// shared by every site).
func LeafUserName(site string) string {
	if site == AnyNode || site == "" {
		return string(RoleLeaf)
	}
	return "leaf-" + site
}

// LeafLocal are the subjects that never cross a site's link, either way: those of the event
// stream and the object store, which the site and the hub each keep (the hub sources the
// site's). $KV and the JetStream API are kept apart by nats-server itself, the domains being
// different. The other way round, the hub sends a site only what LeafPermissions let it take:
// not other sites' heartbeats, so that a site's gateways track only the site's nodes.
var LeafLocal = []string{Events, "$O.>"}

// ValidSite says whether name can name a site: it is a JetStream domain and a subject token.
func ValidSite(name string) bool { return validToken(name) && len(name) <= 64 }

// LeafPermissions are what a site's leaf connection may carry, from the site's side as
// nats-server reads a leaf user's permissions: publish is what the site sends the hub,
// subscribe what it takes from it. A site sends its nodes' heartbeats, progress and frames,
// answers to the hub's gateways, operators and admins, and its streams' messages to the hub's
// sources; it takes requests for its nodes, micro discovery, and JetStream API requests for its
// domain (the hub's sources and gateways reading its buckets). site is the site's name, or
// AnyNode for a user shared by every site.
//
// nodes are the site's node ids (Site). With them the site takes requests for those nodes
// only and sends heartbeats, progress and frames as those nodes only: no site reads another
// site's requests (lease handles, typed text) nor speaks for its nodes. Without them (the Helm
// chart's user shared by every site, corral up --sites: neither knows the sites' nodes) any
// node's.
func LeafPermissions(site string, nodes ...string) (Permissions, error) {
	domain := site
	if site != AnyNode && !ValidSite(site) {
		return Permissions{}, fmt.Errorf("site %q: use letters, digits, '-' and '_' (it is a JetStream domain)", site)
	}
	pub := []string{
		// Answers on the inboxes of the hub's requesters. nats-server's allow_responses cannot
		// narrow them for a leaf: the hub tells a site of an inbox's interest only if the site may
		// publish to it, so a site could never answer. Forging an answer to a request the site
		// did not take needs its reply subject, which the site does not see (but nats.go draws
		// it from a clock-seeded math/rand: no secret against a determined site).
		InboxPrefix(UserName(RoleGateway, "")) + ".>", InboxPrefix(UserName(RoleAdmin, "")) + ".>",
		InboxPrefix(UserName(RoleOperator, "")) + ".>",
		// The hub's sources: consumer replies, deliveries (sources, mirrors).
		"$JSC.R.>", "$JS.S.>", "$JS.M.>",
	}
	sub := []string{"$SRV.>",
		"$JS." + domain + ".API.>", // the hub's sources and gateways reading this site's stores
		// Flow control of the deliveries above: every site's, as nats-server's subjects for it
		// name no site (a site sees the others' names and timing: leaf_flowcontrol_test.go).
		"$JS.FC.>",
	}
	if len(nodes) == 0 {
		return Permissions{PublishAllow: append([]string{Heartbeats, Progresses, Frames}, pub...),
			SubscribeAllow: append([]string{Prefix + ".node.*.*"}, sub...)}, nil
	}
	if site == AnyNode {
		return Permissions{}, fmt.Errorf("nodes %v of site %s: a leaf user shared by every site cannot be limited to one site's nodes; name the site", nodes, site)
	}
	var own, take []string
	for _, n := range nodes {
		if n == AnyNode || !validToken(n) || len(n) > 64 {
			return Permissions{}, fmt.Errorf("site %s: node id %q: use letters, digits, '-' and '_' (a node's --node-id)", site, n)
		}
		own = append(own, fmt.Sprintf(HeartbeatT, n), fmt.Sprintf(ProgressT, n, "*"), fmt.Sprintf(FramesT, n, "*"))
		take = append(take, fmt.Sprintf(NodeGroupT, n)+".*")
	}
	return Permissions{PublishAllow: append(own, pub...), SubscribeAllow: append(take, sub...)}, nil
}

// Site is an edge site as a hub's configuration declares it (corral nats-auth --site
// NAME=NODE,...): its name, which is its JetStream domain, and its nodes' ids, the only nodes
// its leaf user may take requests for and speak as.
type Site struct {
	Name  string
	Nodes []string
}

// SiteAuthConfig is ServerAuthConfig for a hub whose leaf users are these sites': each site's
// user limited to the site's nodes (LeafPermissions). A leaf user of a site not in sites is an
// error: it would take every node's requests.
func SiteAuthConfig(users []User, sites []Site) (string, error) {
	return authConfig(users, func(u User) (Permissions, error) {
		if u.Role != RoleLeaf {
			return u.Permissions()
		}
		for _, s := range sites {
			if s.Name == u.Node {
				return LeafPermissions(s.Name, s.Nodes...)
			}
		}
		return Permissions{}, fmt.Errorf("leaf user %s: site %q declares no nodes (NAME=NODE,...)", u.Name, u.Node)
	})
}

// SiteUsers returns the hub's leaf users of these sites (AnyNode: one user shared by every
// site), their passwords taken from secret(name).
func SiteUsers(sites []string, secret func(name string) (string, error)) ([]User, error) {
	var out []User
	for _, site := range sites {
		if site != AnyNode && !ValidSite(site) {
			return nil, fmt.Errorf("site %q: use letters, digits, '-' and '_' (it is a JetStream domain)", site)
		}
		name := LeafUserName(site)
		pw, err := secret(name)
		if err != nil {
			return nil, err
		}
		out = append(out, User{Name: name, Password: pw, Role: RoleLeaf, Node: site})
	}
	return out, nil
}

// LeafRemoteConfig renders the leafnodes block of a site's standalone nats-server: one remote,
// the hub at urls as the site's leaf user u, with LeafLocal kept on each side. The server's
// jetstream block must name the site as its domain. It holds u's password: keep it secret.
func LeafRemoteConfig(urls []string, u User) (string, error) {
	if len(urls) == 0 {
		return "", fmt.Errorf("leaf remote: no hub URL (nats-leaf://HUB:7422)")
	}
	quote := func(list []string) string {
		q := make([]string, len(list))
		for i, s := range list {
			q[i] = strconv.Quote(s)
		}
		return strings.Join(q, ", ")
	}
	withUser := make([]string, len(urls))
	for i, raw := range urls {
		l, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || l.Host == "" {
			return "", fmt.Errorf("leaf remote: hub URL %q: want nats-leaf://HOST:PORT", raw)
		}
		l.User = url.UserPassword(u.Name, u.Password)
		withUser[i] = l.String()
	}
	return fmt.Sprintf(`# Corral edge site %s: a leaf node of the hub (docs/operations.md, Edge sites). Made by corral nats-auth.
# The site's jetstream block needs: domain: %s
leafnodes {
  remotes = [
    {
      urls: [%s]
      # Kept apart: each side stores these itself; the hub sources the site's streams.
      deny_imports: [%s]
      deny_exports: [%s]
    }
  ]
}
`, u.Node, u.Node, quote(withUser), quote(LeafLocal), quote(LeafLocal)), nil
}
