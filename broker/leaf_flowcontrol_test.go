package broker

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
)

// What a site sees of another's traffic through the hub: the flow control of the hub's sources.
// A site takes it from the hub ($JS.FC.>, LeafPermissions) for the sources of its own streams,
// and nats-server's subjects for it ($JS.FC.<stream>.<consumer>.<id>) name no site: every
// site's streams have the same names, the source consumers' names are the hub's hashes. So a
// client at paris that listens on $JS.FC.> (paris's operator runs its server) gets the hub's
// answers to lyon's flow control: names and timing, no data (the answers are empty), and
// nothing to answer with (a site may not publish there). Narrowing it takes the domain in the
// subject, nats-server's js_ack_fc_v2 at every site, which moves the site's acks and flow
// control for every client there off the subjects their roles allow (auth.go readStreams, the
// Helm chart's nats-permissions.json): not done. This test says what a site sees; when the
// permission is narrowed, paris sees nothing and it must say so instead.
func TestSiteSeesOtherSitesFlowControlNamesOnly(t *testing.T) {
	h := startSourcingHub(t, "paris", "lyon")
	w, err := WatchSites(t.Context(), h.gateway, []string{"paris", "lyon"}, NewSiteMetrics(prometheus.NewRegistry()), h.log)
	require.NoError(t, err)
	paris, lyon := startSiteWithSpy(h, "paris"), startSiteWithSpy(h, "lyon")
	atParis, atLyon := listenFC(t, paris), listenFC(t, lyon)
	require.Eventually(t, func() bool { return w.Up("paris") && w.Up("lyon") }, waitLong, 10*time.Millisecond, "the sites' links never up")
	h.waitRecordAtHub(h.record(lyon, "n2", "t_first").ID, time.Now(), waitLong)

	// Past the flow control window of the hub's source of lyon's events (a push consumer asks
	// for flow control past 1 MiB pending).
	node := h.connect(lyon, UserName(RoleNode, "n2"))
	big := strings.Repeat("x", 64<<10)
	for i := range 40 {
		_, err := node.Request(fmt.Sprintf(EventTaskT, "n2", fmt.Sprintf("t%02d", i)), []byte(big), waitLong)
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool { return len(atLyon.all()) > 0 }, waitLong, 10*time.Millisecond,
		"no flow control of the hub's source at lyon: the test proved nothing")
	require.Eventually(t, func() bool { return len(atParis.all()) > 0 }, waitLong, 10*time.Millisecond,
		"paris never saw lyon's flow control (%v): the permission was narrowed; say so here", atLyon.subjects())
	t.Logf("lyon's flow control %v; paris saw %v", atLyon.subjects(), atParis.subjects())
	for _, m := range atParis.all() {
		require.True(t, strings.HasPrefix(m.Subject, "$JS.FC."+EventStream+".JS_SRC_"), "paris saw more than the names of the hub's source of lyon: %s", m.Subject)
		require.Empty(t, m.Data, "paris saw data in lyon's flow control: %s", m.Subject)
	}
	h.waitRecordAtHub(h.record(lyon, "n2", "t_last").ID, time.Now(), waitLong)
}

// fcLog keeps the flow control messages a listener at a site took.
type fcLog struct {
	mu   sync.Mutex
	msgs []*nats.Msg
}

func (l *fcLog) all() []*nats.Msg { l.mu.Lock(); defer l.mu.Unlock(); return slices.Clone(l.msgs) }

func (l *fcLog) subjects() []string {
	var out []string
	for _, m := range l.all() {
		out = append(out, m.Subject)
	}
	return out
}

// listenFC listens on all flow control at ns as its user spy.
func listenFC(t *testing.T, ns *server.Server) *fcLog {
	spy, err := nats.Connect(ns.ClientURL(), nats.UserInfo("spy", "spy"))
	require.NoError(t, err)
	t.Cleanup(spy.Close)
	l := &fcLog{}
	_, err = spy.Subscribe("$JS.FC.>", func(m *nats.Msg) { l.mu.Lock(); l.msgs = append(l.msgs, m); l.mu.Unlock() })
	require.NoError(t, err)
	require.NoError(t, spy.Flush())
	return l
}

// startSiteWithSpy is startSite with a user spy (password spy) that may listen on all flow
// control there, as the site's operator, who runs its server, may.
func startSiteWithSpy(h *sourcingHub, name string) *server.Server {
	var site *server.Server
	for _, u := range h.leaves {
		if u.Node == name {
			spy := embedded.User{Name: "spy", Password: "spy", Permissions: embedded.Permissions{SubscribeAllow: []string{"$JS.FC.>"}}}
			site = h.start(embedded.Options{Name: name, Domain: name, Users: append(h.serverUsers(h.farm, false), spy),
				LeafRemote: &embedded.LeafRemoteOptions{URLs: []string{fmt.Sprintf("nats-leaf://127.0.0.1:%d", h.listen.Port)},
					User: u.Name, Password: u.Password, Local: LeafLocal}})
		}
	}
	_, err := EnsureStores(h.t.Context(), h.connect(site, UserName(RoleGateway, "")), StoreOptions{})
	require.NoError(h.t, err)
	h.startedSites[name] = site
	return site
}
