package farmtest

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
)

// Hub is a farm of edge sites (docs/operations.md, Edge sites): the hub's NATS server takes
// each site's server as a leaf node, through a Link a test can cut; the hub's gateway
// aggregates the sites' stores, taking each site's own nodes' entries and events only
// (--site-nodes), and sees every site's devices. Each site is a farm of its own, with its
// JetStream domain, its nodes and its own gateway. Every server requires the credentials of a
// role, and the sites' links those of their leaf users limited to their nodes, as in production.
type Hub struct {
	*Farm
	Sites map[string]*Site
}

// Site is one edge site of a Hub.
type Site struct {
	*Farm
	Name string
	Link *Link // its leaf connection to the hub (nil with DirectLinks)
}

// HubOptions shape a Hub.
type HubOptions struct {
	// Sites name each site's nodes, HubNodes the hub's own (ids unique in the whole farm, n1 to
	// n9); every node has PhonesPerNode simulated phones.
	Sites         map[string][]string
	HubNodes      []string
	PhonesPerNode int
	// DirectLinks connects the sites to the hub without a Link (which costs a copy each way):
	// benchmarks of calls that no test cuts.
	DirectLinks bool
	Quiet       bool
}

// StartHub starts a hub, its sites, their nodes and gateways, and waits until the hub's gateway
// sees every site's phones online; everything stops when the test ends.
func StartHub(t testing.TB, opts HubOptions) *Hub {
	t.Helper()
	if opts.PhonesPerNode == 0 {
		opts.PhonesPerNode = 2
	}
	names := slices.Sorted(maps.Keys(opts.Sites))
	secrets, err := broker.OpenSecrets(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	listen := &embedded.LeafListenOptions{Port: -1}
	users, err := broker.SiteUsers(names, secrets.Password)
	var leafUsers []embedded.User
	for _, u := range users {
		p, perr := broker.LeafPermissions(u.Node, opts.Sites[u.Node]...) // each site its own nodes', as nats-auth --site makes them
		err = errors.Join(err, perr)
		leafUsers = append(leafUsers, embedded.User{Name: u.Name, Password: u.Password, Permissions: embedded.Permissions(p), Leaf: true})
	}
	if err != nil {
		t.Fatal(err)
	}
	farmOpts := Options{Auth: true, PhonesPerNode: opts.PhonesPerNode, Quiet: opts.Quiet}
	h := &Hub{Farm: serve(t, farmOpts, embedded.Options{Name: "hub", LeafListen: listen, Users: leafUsers}), Sites: map[string]*Site{}}
	h.sites = names
	for _, name := range names { // the hub's gateway takes each site's own nodes only, as in production
		if len(opts.Sites[name]) > 0 {
			h.siteNodes = append(h.siteNodes, broker.Site{Name: name, Nodes: opts.Sites[name]})
		}
	}
	phones := len(opts.HubNodes) * opts.PhonesPerNode
	for _, id := range opts.HubNodes {
		h.StartNode(id, opts.PhonesPerNode)
	}
	hubAddr := fmt.Sprintf("127.0.0.1:%d", listen.Port)
	for i, name := range names {
		s := &Site{Name: name}
		addr := hubAddr
		if !opts.DirectLinks {
			s.Link = StartLink(t, hubAddr)
			addr = s.Link.Addr()
		}
		s.Farm = serve(t, farmOpts, embedded.Options{Name: name, Domain: name,
			LeafRemote: &embedded.LeafRemoteOptions{URLs: []string{"nats-leaf://" + addr}, User: users[i].Name,
				Password: users[i].Password, Local: broker.LeafLocal}})
		for _, id := range opts.Sites[name] {
			s.StartNode(id, opts.PhonesPerNode)
		}
		s.StartGateway()
		s.WaitDevices(len(opts.Sites[name])*opts.PhonesPerNode, broker.StateOnline)
		h.Sites[name] = s
		phones += len(opts.Sites[name]) * opts.PhonesPerNode
	}
	h.StartGateway()
	h.WaitDevices(phones, broker.StateOnline)
	h.waitSourcing()
	return h
}

// waitSourcing waits until each of the hub's aggregated stores has heard from every site's.
// A link cut while a source is being set up leaves nats-server waiting 30 s on it; the hub's
// gateway re-adds such a source 2 s after the link is back (docs/operations.md, Edge sites),
// which a test's bounds would have to allow for: tests cut a link in use.
func (h *Hub) waitSourcing() {
	h.t.Helper()
	nc, err := broker.Connect(h.Connect(broker.UserName(broker.RoleOperator, ""), "hub-sourcing"), h.log)
	if err != nil {
		h.t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		h.t.Fatal(err)
	}
	for _, name := range []string{"KV_" + broker.RegistryBucket, "KV_" + broker.LeaseBucket, broker.EventStream} {
		var last sourcesSeen // what a failure says: a source missing, idle or in error
		Eventually(h.t, setUpWithin, func() bool {
			s, err := js.Stream(h.ctx, name)
			if err != nil {
				last.text = err.Error()
				return false
			}
			last.text = fmt.Sprintf("%d sources", len(s.CachedInfo().Sources))
			ok := len(s.CachedInfo().Sources) == len(h.sites)
			for _, src := range s.CachedInfo().Sources {
				last.text += fmt.Sprintf("; %s active %s error %v", src.Name, src.Active, src.Error)
				ok = ok && src.Active >= 0 && src.Error == nil
			}
			return ok
		}, "the hub's %s sourcing every site (last seen: %s)", name, &last)
	}
}

// sourcesSeen is the sources' state waitSourcing saw last, read when it gives up.
type sourcesSeen struct{ text string }

func (s *sourcesSeen) String() string { return s.text }
