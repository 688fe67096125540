package broker

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
)

// A new site's records written before its link came up all reach the hub, once, even when
// the hub's event stream has newer messages and its first sequence is above 1 (older events
// aged out). A source that never took anything and has no start of its own is started by
// nats-server from the hub stream's last message time, so such records would be skipped;
// siteSources gives each source its site's first sequence instead (sites.go).
func TestNewSiteRecordsWrittenBeforeItsLinkAllReachTheHub(t *testing.T) {
	h := startSourcingHub(t, "paris")
	w, err := WatchSites(t.Context(), h.gateway, []string{"paris"}, NewSiteMetrics(prometheus.NewRegistry()), h.log)
	require.NoError(t, err)

	// The site runs on its own first: its node finishes three tasks.
	dir := t.TempDir()
	alone := h.startSiteIn("paris", dir, false)
	var early []string
	for i := range 3 {
		early = append(early, h.record(alone, "n1", fmt.Sprintf("t_paris%d", i)).ID)
	}
	alone.Shutdown()
	alone.WaitForShutdown()

	// Then the hub's older events age out, and it takes a newer record.
	h.record(h.hub, "n9", "t_hub1")
	ageOut := func(maxAge time.Duration) {
		_, err := EnsureStores(t.Context(), h.gateway, StoreOptions{Sites: []string{"paris"}, EventsMaxAge: maxAge})
		require.NoError(t, err)
	}
	ageOut(time.Second)
	events, err := h.stores.JS.Stream(t.Context(), EventStream)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		info, err := events.Info(t.Context())
		return err == nil && info.State.Msgs == 0 && info.State.FirstSeq > 1
	}, waitLong, 50*time.Millisecond, "the hub's events never aged out")
	ageOut(0)
	h.record(h.hub, "n9", "t_hub2")

	// The site links up; a record written once its link is up comes after the others.
	site := h.startSiteIn("paris", dir, true)
	require.Eventually(t, func() bool { return w.Up("paris") }, waitLong, 10*time.Millisecond, "the watch never saw paris's link up")
	last := h.record(site, "n1", "t_paris_last").ID
	h.waitRecordAtHub(last, time.Now(), siteRecordArrives) // what arrives, not how soon

	h.requireOnce(append(early, last))

	// A cut: the site writes on its own again while the hub takes newer records. Its sources,
	// re-added at the link-up, resume after its last record the hub holds: nothing twice.
	site.Shutdown()
	site.WaitForShutdown()
	require.Eventually(t, func() bool { return !w.Up("paris") }, waitLong, 10*time.Millisecond, "the watch never saw paris's link down")
	alone = h.startSiteIn("paris", dir, false)
	cut := []string{h.record(alone, "n1", "t_paris_cut").ID}
	alone.Shutdown()
	alone.WaitForShutdown()
	h.record(h.hub, "n9", "t_hub3")
	site = h.startSiteIn("paris", dir, true)
	require.Eventually(t, func() bool { return w.Up("paris") }, waitLong, 10*time.Millisecond, "the watch never saw paris's link up again")
	last = h.record(site, "n1", "t_paris_back").ID
	h.waitRecordAtHub(last, time.Now(), siteRecordArrives) // what arrives, not how soon
	h.requireOnce(append(append(early, cut...), "t_paris_last", last))
}

// requireOnce requires each of the tasks of node n1 named in ids once in the hub's event
// stream, and no other task of n1's.
func (h *sourcingHub) requireOnce(ids []string) {
	h.t.Helper()
	got := h.siteRecordsAtHub("n1")
	for _, id := range ids {
		require.Equal(h.t, 1, got[id], "task %s's record at the hub %d times, want once (all: %v)", id, got[id], got)
	}
	require.Len(h.t, got, len(ids), "the hub's records of n1: %v", got)
}

// startSiteIn starts a site's server with its store in dir, linked to the hub or not, and
// makes its stores.
func (h *sourcingHub) startSiteIn(name, dir string, linked bool) *server.Server {
	so := embedded.Options{Name: name, Domain: name, Users: h.serverUsers(h.farm, false), Port: -1, StoreDir: dir}
	if linked {
		for _, u := range h.leaves {
			if u.Node == name {
				so.LeafRemote = &embedded.LeafRemoteOptions{URLs: []string{fmt.Sprintf("nats-leaf://127.0.0.1:%d", h.listen.Port)},
					User: u.Name, Password: u.Password, Local: LeafLocal}
			}
		}
	}
	ns, err := embedded.Start(so, h.log)
	require.NoError(h.t, err)
	h.t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc := h.connect(ns, UserName(RoleGateway, ""))
	_, err = EnsureStores(h.t.Context(), nc, StoreOptions{})
	require.NoError(h.t, err)
	nc.Close()
	return ns
}

// siteRecordsAtHub counts the task records of node in the hub's event stream, by task id.
func (h *sourcingHub) siteRecordsAtHub(node string) map[string]int {
	h.t.Helper()
	c, err := h.stores.JS.OrderedConsumer(h.t.Context(), EventStream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{fmt.Sprintf(EventTaskT, node, "*")}})
	require.NoError(h.t, err)
	info, err := c.Info(h.t.Context())
	require.NoError(h.t, err)
	got := map[string]int{}
	for n := info.NumPending; n > 0; n-- {
		m, err := c.Next(jetstream.FetchMaxWait(5 * time.Second))
		require.NoError(h.t, err)
		var rec TaskResult
		require.NoError(h.t, json.Unmarshal(m.Data(), &rec), "record %s", m.Subject())
		require.True(h.t, strings.HasSuffix(m.Subject(), "."+rec.ID), "record %s of task %s", m.Subject(), rec.ID)
		got[rec.ID]++
	}
	return got
}

// A hub whose stores source their sites without a start (made before siteSources gave one)
// gets it at its gateway's next start, which names its sites; nats-server takes the change
// on sources it keeps.
func TestHubSourcesOfSitesGetTheirStart(t *testing.T) {
	s := openStoresWith(t, StoreOptions{Sites: []string{"paris", "tokyo"}})
	for _, stream := range sourcedStreams() {
		st, err := s.JS.Stream(t.Context(), stream)
		require.NoError(t, err)
		cfg := st.CachedInfo().Config
		for _, src := range cfg.Sources {
			src.OptStartSeq = 0
		}
		_, err = s.JS.UpdateStream(t.Context(), cfg)
		require.NoError(t, err, "the sources as a hub made them before")
	}
	_, err := EnsureStores(t.Context(), s.JS.Conn(), StoreOptions{Sites: []string{"paris", "tokyo"}})
	require.NoError(t, err)
	for _, stream := range sourcedStreams() {
		st, err := s.JS.Stream(t.Context(), stream)
		require.NoError(t, err)
		require.Len(t, st.CachedInfo().Config.Sources, 2)
		for _, src := range st.CachedInfo().Config.Sources {
			require.Equal(t, uint64(1), src.OptStartSeq, "%s's source of %s", stream, src.External.APIPrefix)
		}
	}
}
