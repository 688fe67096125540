package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A hub's view of its edge sites (leaf.go). Writes of a site's nodes go to the site's domain,
// and reach the hub's registry, leases and event stream through their sources, which catch up
// on their own after a cut. One thing does not: while a site is cut off, the hub's gateways
// stop hearing its nodes and, as for any silent node, mark its devices offline and drop its
// lease mirrors in the hub's buckets, while the site, which heard nothing of it, keeps them.
// A device that did not change during the cut writes nothing new, so no source would ever
// bring it back. So a hub gateway watches each site's link (SiteWatch) and, each time it comes
// up, restores from the site's own buckets every entry the hub holds otherwise.

// Link timing: a site is probed every siteProbeEvery. Its answer gets siteProbeTimeout, the
// farm's slow-link rule (a round trip gets 2 s, as a node claim's refresh does): a slow link or
// a loaded hub is no cut. One probe unanswered that long is a silent cut, seen 2 to 2.5 s after
// it, about when Liveness gives the site's nodes up; a cut that closes the leaf connection
// (no responders, at once) is seen after siteProbeFailures such probes in a row, 0.5 to 1 s
// after it. A silence that is this process's own (its NATS server stalled: no round trip after
// the probe) is no failure (sites_probe.go). While a link-up's catch-up runs (the restores
// and the sources' re-adds below), the site's link carries its backlog and the site's answers
// can come past 2 s though it is live: then a silent cut takes siteProbeFailures unanswered
// probes, 4 to 4.5 s, so that a heal is not undone by its own traffic (CutOff's probes go by
// the same rule, sites_patience.go). That patience lasts
// siteCatchUpPatience after the link-up at most: a source re-add can go on for its whole window
// (30 s) while the site stays quiet, and a silent cut should not wait that out. A reaper that
// decided just before a heal may still be writing when the first restore runs: a second
// restore follows after siteSettle.
const (
	siteProbeEvery      = 500 * time.Millisecond
	siteProbeTimeout    = 2 * time.Second
	siteProbeFailures   = 2
	siteSettle          = 2 * time.Second
	siteCatchUpPatience = 10 * time.Second
)

// sourced says whether a hub's store (a stream's name) sources its sites' same stores: the
// registry, the leases and the event stream. Sessions, node claims and calibrations stay
// where they are written; screenshots stay at the site that took them, and a hub's gateways
// read them there (Stores.Screenshot).
func sourced(stream string) bool {
	return stream == kvStream(RegistryBucket) || stream == kvStream(LeaseBucket) || stream == EventStream
}

// siteAPI is the JetStream API prefix of a site's domain.
func siteAPI(site string) string { return "$JS." + site + ".API" }

// siteOfAPI is the site whose domain's JetStream API prefix is prefix (siteAPI); false for a
// prefix that is not a site's.
func siteOfAPI(prefix string) (string, bool) {
	rest, ok := strings.CutPrefix(prefix, "$JS.")
	if !ok {
		return "", false
	}
	site, ok := strings.CutSuffix(rest, ".API")
	return site, ok && ValidSite(site)
}

// sitesRestored are the buckets a hub restores from its sites after a cut.
var sitesRestored = []string{RegistryBucket, LeaseBucket}

// siteReads are the JetStream API subjects by which a hub's gateway probes its sites' links
// and reads their restored buckets, their screenshots and where their events' sources start,
// in any site's domain.
func siteReads() []string {
	api := siteAPI("*") + "."
	shots := objStream(ScreenshotBucket)
	out := []string{api + "INFO", api + "STREAM.INFO." + shots, api + "DIRECT.GET." + shots, api + "DIRECT.GET." + shots + ".>",
		// Where a re-added source of the site's events starts (siteStart).
		api + "STREAM.INFO." + EventStream, api + "DIRECT.GET." + EventStream}
	for _, b := range sitesRestored {
		s := kvStream(b)
		out = append(out, api+"STREAM.INFO."+s, api+"CONSUMER.CREATE."+s, api+"CONSUMER.CREATE."+s+".>", api+"CONSUMER.DELETE."+s+".>")
	}
	return out
}

// SiteWatch watches a hub's edge sites' links and heals the hub's view of each when its link
// comes back (see above).
type SiteWatch struct {
	nc      *nats.Conn
	hub     jetstream.JetStream
	log     *slog.Logger
	metrics *SiteMetrics

	// restoreSite is restore; a test blocks it to see that the links are probed meanwhile.
	restoreSite func(ctx context.Context, site string, reconnect bool)
	// roundTrip asks this process's own server for a round trip (sites_probe.go): nc's
	// FlushTimeout; a test holds it to see what a probe reads meanwhile.
	roundTrip func(within time.Duration) error
	// answers is where the probes' answers come (sites_probe.go).
	answers siteAnswers
	// probed, if set, hears each of the watch's probes and what the watch then held: a test
	// counts the probes a cut took to be seen.
	probed func(site string, p siteProbe)
	// patience is how long after a link-up a catch-up makes the watch patient
	// (siteCatchUpPatience); a test shortens it.
	patience time.Duration

	// scope are the nodes of each site the hub knows them of (WatchSitesWithNodes): only their
	// entries are restored and learnt from the site.
	scope map[string][]string

	mu sync.Mutex
	up map[string]bool
	// catchUps are the sites' link-ups' catch-ups, for the patience of the watch's probes and
	// CutOff's alike (healing).
	catchUps map[string]*siteCatchUp
	// nodes are the sites' nodes (node id → site): those of scope, and as each site's registry
	// listed them at its last restore: a hub cannot ask a site that is cut off which nodes it has.
	nodes map[string]string
}

// WatchSites starts watching sites over nc, a hub gateway's connection; it stops when ctx ends.
func WatchSites(ctx context.Context, nc *nats.Conn, sites []string, m *SiteMetrics, log *slog.Logger) (*SiteWatch, error) {
	return WatchSitesWithNodes(ctx, nc, sites, nil, m, log)
}

// WatchSitesWithNodes is WatchSites for a hub that knows the nodes of some of its sites
// (scoped): it restores and learns only those nodes' entries from each such site, whose
// writes under other node ids are not the site's to make (sites_sources_scope.go).
func WatchSitesWithNodes(ctx context.Context, nc *nats.Conn, sites []string, scoped []Site, m *SiteMetrics, log *slog.Logger) (*SiteWatch, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := checkSiteNodes(sites, scoped); err != nil {
		return nil, fmt.Errorf("sites: %w", err)
	}
	hub, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("sites: %w", err)
	}
	w := &SiteWatch{nc: nc, hub: hub, log: log, metrics: m, up: map[string]bool{}, nodes: map[string]string{}, scope: map[string][]string{},
		catchUps: map[string]*siteCatchUp{}}
	for _, s := range scoped {
		w.scope[s.Name] = append(w.scope[s.Name], s.Nodes...)
		for _, n := range s.Nodes {
			w.nodes[n] = s.Name
		}
	}
	w.restoreSite, w.roundTrip, w.patience = w.restore, nc.FlushTimeout, siteCatchUpPatience
	for _, site := range sites {
		if !ValidSite(site) {
			return nil, fmt.Errorf("site %q: use letters, digits, '-' and '_' (it is the site's JetStream domain)", site)
		}
		m.know(site)
		go w.watch(ctx, site)
	}
	return w, nil
}

// ownKey says whether key, a registry or lease key (<node>.<serial>), is one site may write:
// any for a site the watch knows no nodes of.
func (w *SiteWatch) ownKey(site, key string) bool {
	nodes, scoped := w.scope[site]
	if !scoped {
		return true
	}
	node, _, ok := strings.Cut(key, ".")
	return ok && slices.Contains(nodes, node)
}

// Up says whether a site's link is up, as last probed.
func (w *SiteWatch) Up(site string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.up[site]
}

// CutOff says whether node is at an edge site whose link is down, and which site; "" and
// false for a node at the hub, at a site whose link is up, or that this watch has not seen in
// a site's registry yet. A link the watch still holds up is probed now: a call fails as soon
// as a cut is noticed, not after the watch's next probes. Its probes go by the watch's rule
// (siteMisses): while a link-up catches up, one left unanswered is no cut, and it probes
// again. A nil watch (a gateway without sites) knows no site.
func (w *SiteWatch) CutOff(ctx context.Context, node string) (site string, cut bool) {
	if w == nil {
		return "", false
	}
	w.mu.Lock()
	site, known := w.nodes[node]
	w.mu.Unlock()
	if !known {
		return "", false
	}
	var misses siteMisses
	for w.Up(site) { // the watch may see the cut first
		sent, busy := time.Now(), w.catchingUp(site)
		// A silence of this process's own says nothing of the link: the call goes on.
		err := w.probe(context.WithoutCancel(ctx), site, &ownServer{}, slog.New(slog.DiscardHandler))
		if err == nil || errors.Is(err, errOwnSilence) {
			return "", false
		}
		if misses.cut(err, w.healing(site, sent, busy)) {
			break
		}
	}
	return site, true
}

// SiteOf says which edge site node is at, whatever its link ("" and false for a node at the
// hub or that this watch has not seen in a site's registry yet).
func (w *SiteWatch) SiteOf(node string) (string, bool) {
	if w == nil {
		return "", false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	site, ok := w.nodes[node]
	return site, ok
}

// Down lists the sites whose link is down, sorted (none for a nil watch).
func (w *SiteWatch) Down() []string {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for site, up := range w.up {
		if !up {
			out = append(out, site)
		}
	}
	slices.Sort(out)
	return out
}

// learnNodes records the nodes that a site's registry keys (<node>.<serial>) name: of a site
// the watch knows the nodes of, those only.
func (w *SiteWatch) learnNodes(site string, keys []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, k := range keys {
		if node, _, ok := strings.Cut(k, "."); ok && w.ownKey(site, k) {
			w.nodes[node] = site
		}
	}
}

// watch probes one site until ctx ends, and restores the hub's view of it whenever its link
// comes up (the first time too: a gateway may start after a cut another one saw).
func (w *SiteWatch) watch(ctx context.Context, site string) {
	t := time.NewTicker(siteProbeEvery)
	defer t.Stop()
	var misses siteMisses
	// A link-up is a reconnect when the link was up before (wasUp): a site down when this
	// gateway started (a new site not connected yet) was never up, its first link-up is not.
	var up, known, wasUp, reconnect bool
	var settle <-chan time.Time
	// A restore runs beside the probes, which go on: a link that drops during one (its
	// requests then wait out their timeouts) is seen down as any cut is, and the restore is
	// stopped.
	var restoring sync.WaitGroup
	stopRestore := context.CancelFunc(func() {})
	defer func() { stopRestore(); restoring.Wait() }()
	// The restores and source re-adds at work are the link-up's catch-up.
	catchUp := w.catchUp(site)
	restore := func() {
		stopRestore()
		restoring.Wait() // one restore at a time
		rctx, cancel := context.WithCancel(ctx)
		stopRestore = cancel
		catchUp.busy.Add(1)
		restoring.Go(func() { defer catchUp.busy.Add(-1); w.restoreSite(rctx, site, reconnect) })
	}
	// The hub's sources of the site are nudged beside the probes too, from each link-up until they
	// hear the site or the link drops (sites_sources.go).
	var kicking sync.WaitGroup
	stopKick := context.CancelFunc(func() {})
	defer func() { stopKick(); kicking.Wait() }()
	kick := func() {
		stopKick()
		kicking.Wait()
		kctx, cancel := context.WithCancel(ctx)
		stopKick = cancel
		catchUp.busy.Add(1)
		kicking.Go(func() { defer catchUp.busy.Add(-1); w.kickSources(kctx, site) })
	}
	// A silence of this process's own is no failure (sites_probe.go).
	own := &ownServer{holds: "no site's silence counts until it answers", resumes: "the sites' probes count again"}
	log := w.log.With("site", site)
	for {
		sent, busy := time.Now(), w.catchingUp(site)
		err := w.probe(ctx, site, own, log)
		healing := w.healing(site, sent, busy)
		switch {
		case errors.Is(err, errOwnSilence):
			misses = 0
		case err == nil:
			misses = 0
			if !up || !known {
				reconnect = wasUp
				w.linkUp(site, reconnect)
				up, known, wasUp = true, true, true
				restore()
				kick()
				settle = time.After(siteSettle)
			}
		case ctx.Err() != nil:
			return
		default:
			if misses.cut(err, healing) && (up || !known) {
				// A site this gateway never reached is most often one not started yet (every
				// site, at a hub's start): no cut to warn of, or to count as one.
				if wasUp {
					w.log.Warn("site link down: the site's devices are offline here until it is back; it serves its own callers meanwhile",
						"site", site, "err", err)
				} else {
					w.log.Info("site not connected yet: not reached since this gateway started; its devices are offline here until it connects",
						"site", site, "err", err)
				}
				stopRestore()
				stopKick()
				w.setUp(site, false)
				up, known, settle = false, true, nil
			}
		}
		if w.probed != nil {
			w.probed(site, siteProbe{Err: err, Took: time.Since(sent), Healing: healing, Up: up})
		}
		select {
		case <-ctx.Done():
			return
		case <-settle:
			settle = nil
			restore()
		case <-t.C:
		}
	}
}

// siteProbe is one of a watch's probes as its probed hook hears it: what the probe found, how
// long it took, whether the link was catching up after a link-up, and the link as the watch
// holds it after the probe.
type siteProbe struct {
	Err     error
	Took    time.Duration
	Healing bool
	Up      bool
}

// linkUp notes a site's link up: a reconnect when it was up before.
func (w *SiteWatch) linkUp(site string, reconnect bool) {
	if reconnect {
		w.metrics.reconnected(site)
		w.log.Info("site link back", "site", site)
	} else {
		w.log.Info("site link up", "site", site)
	}
	w.catchUp(site).upAt.Store(time.Now().UnixNano())
	w.setUp(site, true)
}

func (w *SiteWatch) setUp(site string, up bool) {
	w.mu.Lock()
	w.up[site] = up
	w.mu.Unlock()
	w.metrics.setUp(site, up)
}

// restore makes the hub's restored buckets agree with the site's, after a reconnect or at the
// link's first time up here (a cut another gateway saw, or a source still catching up).
func (w *SiteWatch) restore(ctx context.Context, site string, reconnect bool) {
	why := "as its link came up"
	if reconnect {
		why = "after its link came back"
	}
	js, err := jetstream.NewWithDomain(w.nc, site)
	if err != nil {
		w.log.Warn("site not restored", "site", site, "err", err)
		return
	}
	for _, bucket := range sitesRestored {
		n, keys, err := restoreBucket(ctx, w.hub, js, bucket, func(key string) bool { return w.ownKey(site, key) })
		if bucket == RegistryBucket {
			w.learnNodes(site, keys)
		}
		w.metrics.restored(site, n)
		if err != nil && watchEnded(ctx, err) {
			// The link dropped or the gateway stops: the next link-up restores again.
			w.log.Debug("site's entries not all restored at the hub: the watch ended", "site", site, "bucket", bucket, "restored", n, "err", err)
			return
		}
		if err != nil {
			w.log.Warn("site's entries not all restored at the hub; the next heal or write brings them", "site", site, "bucket", bucket, "restored", n, "err", err)
		} else if n > 0 {
			w.log.Info("site's entries restored at the hub "+why, "site", site, "bucket", bucket, "restored", n)
		}
	}
}

// restoreBucket writes into the hub's bucket every entry of the site's under a key it may write
// (own) that the hub lacks or holds otherwise, each on the condition that the hub's entry has
// not changed since it was read: a newer one, brought by the source meanwhile, is never
// overwritten. It returns how many it wrote and the site's keys.
func restoreBucket(ctx context.Context, hubJS, siteJS jetstream.JetStream, bucket string, own func(key string) bool) (int, []string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	site, err := siteJS.KeyValue(ctx, bucket)
	if err != nil {
		return 0, nil, fmt.Errorf("open the site's %s: %w", bucket, err)
	}
	hub, err := hubJS.KeyValue(ctx, bucket)
	if err != nil {
		return 0, nil, fmt.Errorf("open the hub's %s: %w", bucket, err)
	}
	theirs, err := kvSnapshot(ctx, site)
	if err != nil {
		return 0, nil, fmt.Errorf("read the site's %s: %w", bucket, err)
	}
	keys := slices.Collect(maps.Keys(theirs))
	ours, err := kvSnapshot(ctx, hub)
	if err != nil {
		return 0, nil, fmt.Errorf("read the hub's %s: %w", bucket, err)
	}
	n := 0
	var errs []error
	for key, e := range theirs {
		if !own(key) {
			continue
		}
		mine, ok := ours[key]
		if ok && string(mine.Value()) == string(e.Value()) {
			continue
		}
		if ok {
			_, err = hub.Update(ctx, key, e.Value(), mine.Revision())
		} else {
			_, err = hub.Create(ctx, key, e.Value()) // over the hub's delete marker, if any
		}
		switch {
		case err == nil:
			n++
		case !errors.Is(err, jetstream.ErrKeyExists) && !isWrongLastSequence(err):
			errs = append(errs, fmt.Errorf("%s: %w", key, err))
		}
	}
	return n, keys, errors.Join(errs...)
}

// kvSnapshot reads a bucket's current entries, deleted keys left out.
func kvSnapshot(ctx context.Context, kv jetstream.KeyValue) (map[string]jetstream.KeyValueEntry, error) {
	w, err := kv.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, err
	}
	defer func() { _ = w.Stop() }()
	out := map[string]jetstream.KeyValueEntry{}
	for {
		select {
		case <-ctx.Done():
			return out, ctx.Err()
		case e := <-w.Updates():
			if e == nil {
				return out, nil
			}
			out[e.Key()] = e
		}
	}
}

// isWrongLastSequence says whether err is JetStream refusing a conditional write: the entry
// changed since it was read.
func isWrongLastSequence(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && (api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence || api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}
