package broker

import (
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
)

// A source re-added at the hub when the hub holds none of its site's records starts at the
// hub stream's age horizon: the site's records older than the hub's MaxAge, which the hub had
// aged out or would have, stay at the site; those younger, written before the link came up
// too, all arrive, once.
func TestReaddedSourceStartsAtTheHubsAgeHorizon(t *testing.T) {
	// The young records must still be younger than maxAge at the re-add, which comes the site's
	// restart and siteSourceGrace after them (about 4 s here, more on a loaded machine), and
	// still at the hub when the test reads them there: room for both.
	const maxAge = 15 * time.Second
	h := startSourcingHub(t, "paris")
	_, err := EnsureStores(t.Context(), h.gateway, StoreOptions{Sites: []string{"paris"}, EventsMaxAge: maxAge})
	require.NoError(t, err)
	w, err := WatchSites(t.Context(), h.gateway, []string{"paris"}, NewSiteMetrics(prometheus.NewRegistry()), h.log)
	require.NoError(t, err)

	// The site runs on its own: two records older than the hub's MaxAge by the link-up, two
	// younger.
	dir := t.TempDir()
	alone := h.startSiteIn("paris", dir, false)
	for i := range 2 {
		h.record(alone, "n1", fmt.Sprintf("t_old%d", i))
	}
	old := time.Now()
	require.Eventually(t, func() bool { return time.Since(old) > maxAge }, 2*maxAge, 50*time.Millisecond)
	var young []string
	wroteYoung := time.Now()
	for i := range 2 {
		young = append(young, h.record(alone, "n1", fmt.Sprintf("t_young%d", i)).ID)
	}
	alone.Shutdown()
	alone.WaitForShutdown()

	site := h.startSiteIn("paris", dir, true)
	require.Eventually(t, func() bool { return w.Up("paris") }, 30*time.Second, 10*time.Millisecond, "the watch never saw paris's link up")
	t.Logf("paris's link up %v after its young records", time.Since(wroteYoung).Round(time.Millisecond))
	last := h.record(site, "n1", "t_paris_last").ID
	// Still before nats-server's own retry of the source, 40 s after the hub's start: the
	// re-add brought it.
	h.waitRecordAtHub(last, time.Now(), siteProbeEvery+siteSourceGrace+siteSourcePoll+12*time.Second)
	h.requireOnce(append(young, last))
}
