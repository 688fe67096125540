package broker

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A site writes into its own stores under another site's node id (tokyo's n2) and the hub's
// own (n9), by its gateway user and by nodes started there with those ids: registry entries,
// lease mirrors, device and node events, task records. A hub that knows paris's nodes takes
// none of them, by its sources or by its restore at the link-up, and still places n2 at tokyo;
// paris's own n1's entries and records, written after them, arrive.
func TestScopedSiteTakesOnlyItsOwnNodesEntriesAndEvents(t *testing.T) {
	scoped := []Site{{Name: "paris", Nodes: []string{"n1"}}, {Name: "tokyo", Nodes: []string{"n2"}}}
	h := startSourcingHubWith(t, StoreOptions{Sites: []string{"paris", "tokyo"}, SiteNodes: scoped})
	w, err := WatchSitesWithNodes(t.Context(), h.gateway, []string{"paris", "tokyo"}, scoped, NewSiteMetrics(prometheus.NewRegistry()), h.log)
	require.NoError(t, err)

	// paris runs alone first, and writes as others, then as its own n1.
	dir := t.TempDir()
	alone := h.startSiteIn("paris", dir, false)
	h.forge(alone, "t_forged1")
	h.entry(alone, UserName(RoleNode, "n1"), RegistryBucket, "n1", StateOnline)
	own := []string{h.record(alone, "n1", "t_paris1").ID}
	alone.Shutdown()
	alone.WaitForShutdown()

	site := h.startSiteIn("paris", dir, true)
	require.Eventually(t, func() bool { return w.Up("paris") }, waitLong, 10*time.Millisecond, "the watch never saw paris's link up")
	// Over the live link too.
	h.forge(site, "t_forged2")
	own = append(own, h.record(site, "n1", "t_paris2").ID)
	h.waitRecordAtHub(own[1], time.Now(), siteRecordArrives) // what arrives, not how soon (sites_sources_test.go)
	h.requireOnce(own)
	require.Eventually(t, func() bool {
		_, err := h.stores.Registry.Get(t.Context(), RegistryKey("n1", "n1-p1"))
		return err == nil
	}, waitLong, 20*time.Millisecond, "paris's n1 entry never reached the hub")
	w.restore(t.Context(), "paris", false) // what the watch runs at each link-up, done by now

	for _, b := range []struct {
		kv   jetstream.KeyValue
		name string
	}{{h.stores.Registry, RegistryBucket}, {h.stores.Leases, LeaseBucket}} {
		keys, err := b.kv.ListKeys(t.Context())
		require.NoError(t, err)
		var got []string
		for k := range keys.Keys() {
			got = append(got, k)
		}
		for _, node := range []string{"n2", "n9"} {
			assert.False(t, slices.ContainsFunc(got, func(k string) bool { return strings.HasPrefix(k, node+".") }),
				"the hub's %s took paris's entry as %s's: %v", b.name, node, got)
		}
	}
	for _, node := range []string{"n2", "n9"} {
		assert.Zero(t, h.eventsAtHub(node), "the hub's events took paris's events as %s's", node)
	}
	site2, _ := w.SiteOf("n2")
	assert.Equal(t, "tokyo", site2, "the hub placed n2 at paris, which wrote as it")
	_, known := w.SiteOf("n9")
	assert.False(t, known, "the hub placed its own n9 at a site")
}

// forge writes, at a site's server, what only tokyo's n2 and the hub's n9 may write: registry
// entries and lease mirrors and device and node events by the site's gateway user, a task
// record by a node started there as n2 (id is its task).
func (h *sourcingHub) forge(ns *server.Server, id string) {
	h.t.Helper()
	for _, node := range []string{"n2", "n9"} {
		h.entry(ns, UserName(RoleGateway, ""), RegistryBucket, node, StateOnline)
		h.entry(ns, UserName(RoleGateway, ""), LeaseBucket, node, StateLeased)
		nc := h.connect(ns, UserName(RoleGateway, ""))
		_, err := nc.Request(fmt.Sprintf(EventDevT, node, node+"-p1", StateOffline), []byte(`{}`), waitLong)
		require.NoError(h.t, err)
		_, err = nc.Request(fmt.Sprintf(EventNodeT, node, "lost"), []byte(`{}`), waitLong)
		require.NoError(h.t, err)
		nc.Close()
	}
	h.record(ns, "n2", id)
}

// entry writes node's device node-p1 into bucket at a site's server, as user.
func (h *sourcingHub) entry(ns *server.Server, user, bucket, node string, state string) {
	h.t.Helper()
	data, err := json.Marshal(DeviceEntry{Serial: node + "-p1", Node: node, State: state})
	require.NoError(h.t, err)
	nc := h.connect(ns, user)
	defer nc.Close()
	_, err = nc.Request("$KV."+bucket+"."+RegistryKey(node, node+"-p1"), data, waitLong) // the stream's ack
	require.NoError(h.t, err)
}

// eventsAtHub counts the events naming node in the hub's event stream.
func (h *sourcingHub) eventsAtHub(node string) uint64 {
	h.t.Helper()
	st, err := h.stores.JS.Stream(h.t.Context(), EventStream)
	require.NoError(h.t, err)
	info, err := st.Info(h.t.Context(), jetstream.WithSubjectFilter(Prefix+".events.*."+node+".>"))
	require.NoError(h.t, err)
	var n uint64
	for _, c := range info.State.Subjects {
		n += c
	}
	return n
}

// A hub whose sources took a site whole gets them limited to the site's nodes at its gateway's
// next start (corral gateway --site-nodes), with the site linked: every record the hub took
// before stays once, and a later one arrives once. nats-server takes a source with new filters
// as a new source, which would start at the site's first record: it starts after the last the
// hub holds. Then a node joins the site, named at a start during a cut, and a gateway's kick
// re-adds the sources before they took anything (nats-server then knows nothing of where they
// stand): the record written during the cut arrives once, and nothing twice.
func TestSiteSourcesTakeFiltersKeepingWhatTheHubTook(t *testing.T) {
	h := startSourcingHub(t, "paris")
	// storesFor is a hub gateway's start: its stores' sources, limited to scoped.
	storesFor := func(scoped []Site) {
		_, err := EnsureStores(t.Context(), h.gateway, StoreOptions{Sites: []string{"paris"}, SiteNodes: scoped})
		require.NoError(t, err)
		for _, stream := range sourcedStreams() {
			st, err := h.stores.JS.Stream(t.Context(), stream)
			require.NoError(t, err)
			srcs := st.CachedInfo().Config.Sources
			require.Len(t, srcs, 1, "%s's sources", stream)
			require.Equal(t, siteFilters(stream, scoped[0].Nodes), sourceSubjects(srcs[0]), "%s's source of paris", stream)
		}
	}
	// watch starts a gateway's watch of paris, the previous one stopped.
	stop := func() {}
	t.Cleanup(func() { stop() })
	watch := func(scoped []Site) *SiteWatch {
		stop()
		ctx, cancel := context.WithCancel(t.Context())
		stop = cancel
		w, err := WatchSitesWithNodes(ctx, h.gateway, []string{"paris"}, scoped, NewSiteMetrics(prometheus.NewRegistry()), h.log)
		require.NoError(t, err)
		return w
	}
	bound := siteRecordArrives // this test is about what arrives, not how soon (sites_sources_test.go)
	w := watch(nil)
	dir := t.TempDir()
	site := h.startSiteIn("paris", dir, true)
	require.Eventually(t, func() bool { return w.Up("paris") }, waitLong, 10*time.Millisecond, "the watch never saw paris's link up")
	taken := []string{h.record(site, "n1", "t_paris1").ID, h.record(site, "n1", "t_paris2").ID}
	h.waitRecordAtHub(taken[1], time.Now(), bound)
	h.requireOnce(taken)

	// The watch of the gateway that starts again comes after the record: its kick would re-add
	// the sources, which this part is not about.
	stop()
	storesFor([]Site{{Name: "paris", Nodes: []string{"n1"}}})
	taken = append(taken, h.record(site, "n1", "t_paris3").ID)
	h.waitRecordAtHub(taken[2], time.Now(), bound)
	h.requireOnce(taken)
	w = watch([]Site{{Name: "paris", Nodes: []string{"n1"}}})

	// The cut; the site writes on its own; the hub's gateway starts again with n3 at paris.
	site.Shutdown()
	site.WaitForShutdown()
	require.Eventually(t, func() bool { return !w.Up("paris") }, waitLong, 10*time.Millisecond, "the watch never saw paris's link down")
	alone := h.startSiteIn("paris", dir, false)
	taken = append(taken, h.record(alone, "n1", "t_paris_cut").ID)
	alone.Shutdown()
	alone.WaitForShutdown()
	scoped := []Site{{Name: "paris", Nodes: []string{"n1", "n3"}}}
	storesFor(scoped)
	for _, stream := range sourcedStreams() { // what kickSources does with an idle source
		src, err := removeSource(t.Context(), h.stores.JS, stream, "paris")
		require.NoError(t, err)
		require.NotNil(t, src, stream)
		require.True(t, w.addBack(t.Context(), "paris", stream, src), stream)
	}
	w = watch(scoped)
	site = h.startSiteIn("paris", dir, true)
	require.Eventually(t, func() bool { return w.Up("paris") }, waitLong, 10*time.Millisecond, "the watch never saw paris's link up again")
	taken = append(taken, h.record(site, "n1", "t_paris_back").ID)
	h.waitRecordAtHub(taken[4], time.Now(), bound)
	h.requireOnce(taken)
}
