package broker

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
)

// A site that connects after the hub: the hub's sources asked it for their consumers before it
// was there, and nats-server waits 30 s for those answers, then 10 s more, and skips them in
// its own retry at the leaf's connection (sites_sources.go). A task record written at the site
// once its link is up reaches the hub's event stream, where corral tasks (TaskHistory) and
// get_task_result (taskRecord) read it, within the watch's grace and one source set-up: well
// before nats-server's wait is over. Servers, users and leaf permissions are production's.
func TestSiteRecordReachesTheHubSoonAfterItsLinkUp(t *testing.T) {
	h := startSourcingHub(t, "paris")
	h.record(h.hub, "n9", "t_hub1") // one of the hub's own, before
	w, err := WatchSites(t.Context(), h.gateway, []string{"paris"}, NewSiteMetrics(prometheus.NewRegistry()), h.log)
	require.NoError(t, err)

	site := h.startSite("paris")
	require.Eventually(t, func() bool { return w.Up("paris") }, waitLong, 10*time.Millisecond, "the watch never saw paris's link up")
	linkUp := time.Now()
	rec := h.record(site, "n1", "t_paris1")

	// siteRecordSoon: still far below nats-server's 30 s wait, which is what this test tells apart.
	require.Less(t, siteRecordSoon, natsSourceWait, "a bound that does not tell the watch's re-add from nats-server's own set-up")
	h.waitRecordAtHub(rec.ID, linkUp, siteRecordSoon)
	got, err := h.stores.taskRecord(t.Context(), rec.ID)
	require.NoError(t, err, "get_task_result's read of the site's record at the hub")
	require.Equal(t, "n1", got.Node)
	require.Equal(t, "succeeded", got.Outcome)
	// The re-add is said at info; nats-server's scan of the hub's stream for where the source
	// stood (it holds the hub's record) is no warning to the operator.
	require.Contains(t, h.out.Line("site's source re-added at the hub"), "level=INFO")
	require.Contains(t, h.out.Line("Sourcing state is outdated"), "level=DEBUG")
}

// Re-adding one site's sources leaves the other sites' alone: a record written at a site whose
// sources are live reaches the hub at once while another site's are re-added (nats-server
// names a source's consumer after the stream alone while the stream has one source, after the
// source too from two on: the re-add, which removes one source of two, must not cost the other
// its consumer), and the late site's own record arrives too.
func TestSiteSourceReaddLeavesTheOtherSiteAlone(t *testing.T) {
	h := startSourcingHub(t, "paris", "tokyo")
	w, err := WatchSites(t.Context(), h.gateway, []string{"paris", "tokyo"}, NewSiteMetrics(prometheus.NewRegistry()), h.log)
	require.NoError(t, err)

	paris := h.startSite("paris")
	require.Eventually(t, func() bool { return w.Up("paris") }, waitLong, 10*time.Millisecond, "the watch never saw paris's link up")
	h.waitRecordAtHub(h.record(paris, "n1", "t_paris1").ID, time.Now(), siteRecordArrives)

	// tokyo comes late: its sources are re-added. paris's own go on meanwhile: its record
	// written as they are re-added reaches the hub as fast as a live source brings it.
	readds := strings.Count(h.out.String(), "site's source re-added at the hub")
	h.startSite("tokyo")
	require.Eventually(t, func() bool { return w.Up("tokyo") }, waitLong, 10*time.Millisecond, "the watch never saw tokyo's link up")
	require.Eventually(t, func() bool {
		return strings.Count(h.out.String(), "site's source re-added at the hub") >= readds+len(sourcedStreams())
	}, siteRecordArrives, 10*time.Millisecond, "tokyo's sources not re-added:\n%s", &h.out) // a link that drops under load waits its grace again
	written := time.Now()
	h.waitRecordAtHub(h.record(paris, "n1", "t_paris2").ID, written, 5*time.Second)
	h.waitRecordAtHub(h.record(h.startedSites["tokyo"], "n2", "t_tokyo1").ID, written, 5*time.Second)
}

// How long a site's task record takes to reach the hub after the site's link came up.
const (
	// natsSourceWait is how long nats-server waits for the answer to a source's request for
	// its consumer that went out while the site was not connected, before it asks again.
	natsSourceWait = 30 * time.Second
	// siteRecordSoon bounds tests of how soon, by the watch's re-add (sites_sources.go): it
	// sees the link up within a probe, gives nats-server siteSourceGrace, re-adds each source
	// still idle at its next poll, and once more siteSourceRetry later one still idle; the
	// rest is for a loaded machine (at load 20 on 2 cores a record came 8.8 s after the link
	// was up, at load 27 13.7 s).
	siteRecordSoon = siteProbeEvery + siteSourceGrace + siteSourcePoll + siteSourceRetry + 10*time.Second
	// siteRecordArrives bounds the waits of tests about what arrives, not how soon: longer
	// than nats-server's own set-up of a source, should the re-add not come in time.
	siteRecordArrives = 2 * natsSourceWait
)

// sourcingHub is a hub whose stores source its sites before any of them is there: each
// source's request for its consumer is out, unanswered (nats-server waits 30 s on it).
type sourcingHub struct {
	t            *testing.T
	out          logtest.Buffer
	log          *slog.Logger
	secrets      *Secrets
	farm, leaves []User
	listen       *embedded.LeafListenOptions
	hub          *server.Server
	gateway      *nats.Conn
	stores       *Stores
	startedSites map[string]*server.Server
}

func startSourcingHub(t *testing.T, sites ...string) *sourcingHub {
	return startSourcingHubWith(t, StoreOptions{Sites: sites})
}

// startSourcingHubWith is startSourcingHub with the hub's stores made with o (its Sites, and
// the SiteNodes of some).
func startSourcingHubWith(t *testing.T, o StoreOptions) *sourcingHub {
	sites := o.Sites
	h := &sourcingHub{t: t, listen: &embedded.LeafListenOptions{Port: -1}, startedSites: map[string]*server.Server{}}
	h.log = slog.New(slog.NewTextHandler(&h.out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the hub's, its sites' and the watch's log:\n%s", &h.out)
		}
	})
	var err error
	h.secrets, err = OpenSecrets(t.TempDir())
	require.NoError(t, err)
	h.farm, err = FarmUsers([]string{"n1", "n2", "n9"}, h.secrets.Password)
	require.NoError(t, err)
	h.leaves, err = SiteUsers(sites, h.secrets.Password)
	require.NoError(t, err)

	// A spy on the consumer requests the hub's sources send.
	creates := siteAPI("*") + ".CONSUMER.CREATE.>"
	spy := embedded.User{Name: "spy", Password: "spy", Permissions: embedded.Permissions{SubscribeAllow: []string{creates}}}
	h.hub = h.start(embedded.Options{Name: "hub", LeafListen: h.listen, Users: append(append(h.serverUsers(h.farm, false), h.serverUsers(h.leaves, true)...), spy)})
	spyConn, err := nats.Connect(h.hub.ClientURL(), nats.UserInfo("spy", "spy"))
	require.NoError(t, err)
	defer spyConn.Close()
	asked := make(chan string, 64)
	_, err = spyConn.Subscribe(creates, func(m *nats.Msg) { asked <- m.Subject })
	require.NoError(t, err)
	require.NoError(t, spyConn.Flush())

	h.gateway = h.connect(h.hub, UserName(RoleGateway, ""))
	h.stores, err = EnsureStores(t.Context(), h.gateway, o)
	require.NoError(t, err)
	waiting := map[string]bool{}
	for len(waiting) < len(sites)*len(sourcedStreams()) {
		select {
		case s := <-asked:
			for _, site := range sites {
				for _, stream := range sourcedStreams() {
					if create := siteAPI(site) + ".CONSUMER.CREATE." + stream; s == create || strings.HasPrefix(s, create+".") {
						waiting[site+" "+stream] = true
					}
				}
			}
		case <-time.After(waitLong):
			t.Fatalf("the hub's sources asked only %v", waiting)
		}
	}
	return h
}

// startSite starts a site's server, which connects to the hub as a leaf at once, and makes
// its stores.
func (h *sourcingHub) startSite(name string) *server.Server {
	var leaf User
	for _, u := range h.leaves {
		if u.Node == name {
			leaf = u
		}
	}
	site := h.start(embedded.Options{Name: name, Domain: name, Users: h.serverUsers(h.farm, false),
		LeafRemote: &embedded.LeafRemoteOptions{URLs: []string{fmt.Sprintf("nats-leaf://127.0.0.1:%d", h.listen.Port)},
			User: leaf.Name, Password: leaf.Password, Local: LeafLocal}})
	_, err := EnsureStores(h.t.Context(), h.connect(site, UserName(RoleGateway, "")), StoreOptions{})
	require.NoError(h.t, err)
	h.startedSites[name] = site
	return site
}

// record writes a task record of node's at ns, as nodes/mirror.go does, and returns it once
// the stream there has stored it.
func (h *sourcingHub) record(ns *server.Server, node, id string) TaskResult {
	h.t.Helper()
	rec := TaskResult{V: 1, ID: id, Serial: node + "-p1", Node: node, Tool: "tap_xy", Outcome: "succeeded"}
	data, err := json.Marshal(rec)
	require.NoError(h.t, err)
	nc := h.connect(ns, UserName(RoleNode, node))
	defer nc.Close()
	_, err = nc.Request(fmt.Sprintf(EventTaskT, node, id), data, waitLong) // the stream's ack
	require.NoError(h.t, err)
	return rec
}

// waitRecordAtHub waits until the hub's task history, as corral tasks reads it, holds task
// id, at most bound after since.
func (h *sourcingHub) waitRecordAtHub(id string, since time.Time, bound time.Duration) {
	h.t.Helper()
	poll := time.NewTicker(50 * time.Millisecond)
	defer poll.Stop()
	for {
		hist, err := h.stores.TaskHistory(h.t.Context(), HistoryQuery{Limit: 20})
		if err == nil {
			for _, r := range hist.Tasks {
				if r.ID == id {
					h.t.Logf("task %s at the hub %v after", id, time.Since(since).Round(time.Millisecond))
					return
				}
			}
		}
		if time.Since(since) > bound {
			h.t.Fatalf("task %s's record is not at the hub %v after (bound %v): the hub's source of its site is not live "+
				"(the watch saw a link drop %d times in this test: a site that did not answer a probe within %v on a loaded machine "+
				"drops its link here, and a drop ends the watch's re-add of its sources)",
				id, time.Since(since).Round(time.Millisecond), bound, strings.Count(h.out.String(), "site link down"), siteProbeTimeout)
		}
		<-poll.C
	}
}

func (h *sourcingHub) serverUsers(users []User, leaf bool) []embedded.User {
	var out []embedded.User
	for _, u := range users {
		p, err := u.Permissions()
		require.NoError(h.t, err)
		out = append(out, embedded.User{Name: u.Name, Password: u.Password, Permissions: embedded.Permissions(p), Leaf: leaf})
	}
	return out
}

func (h *sourcingHub) connect(ns *server.Server, user string) *nats.Conn {
	pw, err := h.secrets.Password(user)
	require.NoError(h.t, err)
	nc, err := nats.Connect(ns.ClientURL(), nats.UserInfo(user, pw), nats.CustomInboxPrefix(InboxPrefix(user)))
	require.NoError(h.t, err)
	h.t.Cleanup(nc.Close)
	return nc
}

func (h *sourcingHub) start(so embedded.Options) *server.Server {
	so.Port, so.StoreDir = -1, h.t.TempDir()
	ns, err := embedded.Start(so, h.log)
	require.NoError(h.t, err)
	h.t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	return ns
}
