package broker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The hub's sources of a site (siteSources) are nats-server's to set up: it asks the site's
// JetStream for a consumer and waits for the answer. A request sent while the site is not
// connected goes nowhere, and nats-server waits 30 s for its answer, then 10 s more for each
// failure before asking again (up to 2 min); its own retry when a leaf node connects skips a
// source whose request still waits. So a site that connected after the hub, or came back
// after a cut (a source that heard nothing for 10 s asks again, in vain while the link is
// down), could have its task records reach the hub 40 s to minutes later. When a site's link comes up, the watch gives nats-server
// siteSourceGrace to set them up itself, and then re-adds each source still idle: removed
// and added again, a source asks the site at once, from where the hub's stream says it was
// (nats-server finds the last message it took from the site), so nothing is taken twice; one
// that holds nothing of the site's starts at the first of its messages younger than the hub
// keeps them (sites_sources_horizon.go).
const (
	// siteSourceGrace is how long nats-server has after a link-up to set a source up itself:
	// its retry at the leaf's connection answers within milliseconds over a live link.
	siteSourceGrace = 2 * time.Second
	// siteSourceIdle is how long a live source goes without hearing its site: a site's
	// consumer sends a heartbeat every second.
	siteSourceIdle = 3 * time.Second
	// siteSourceRetry is how often a source still idle after its re-add is re-added again,
	// until siteSourceWindow after the link-up: the site's stores may not exist yet when
	// its server connects (its Corral creates them just after).
	siteSourceRetry  = 5 * time.Second
	siteSourceWindow = 30 * time.Second
	siteSourcePoll   = 250 * time.Millisecond
)

// sourcedStreams are the hub's streams that source each site's.
func sourcedStreams() []string {
	return []string{kvStream(RegistryBucket), kvStream(LeaseBucket), EventStream}
}

// kickSources re-adds the hub's sources of site that are still idle siteSourceGrace after its
// link came up (see above), until they are live, siteSourceWindow has passed or ctx ends (the
// link dropped). A source removed and not added back is added back before it returns. A source
// is added back as it was, its filters kept (sites_sources_scope.go).
func (w *SiteWatch) kickSources(ctx context.Context, site string) {
	start := time.Now()
	t := time.NewTicker(siteSourcePoll)
	defer t.Stop()
	kicked := map[string]time.Time{}
	missing := map[string]*jetstream.StreamSource{} // removed, not added back yet
	defer func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		for stream, src := range missing {
			w.addBack(ctx, site, stream, src)
		}
	}()
	for {
		for stream, src := range missing {
			if w.addBack(ctx, site, stream, src) {
				delete(missing, stream)
			}
		}
		idle := idleSources(ctx, w.hub, site, time.Since(start))
		if len(idle) == 0 && len(missing) == 0 {
			return
		}
		now := time.Now()
		for _, stream := range idle {
			if now.Sub(start) < siteSourceGrace || now.Sub(kicked[stream]) < siteSourceRetry {
				continue
			}
			kicked[stream] = now
			src, err := removeSource(ctx, w.hub, stream, site)
			if err != nil && watchEnded(ctx, err) {
				return
			}
			if err != nil {
				w.log.Warn("site's idle source not re-added at the hub; nats-server retries it itself, within minutes", "site", site, "stream", stream, "err", err)
				continue
			}
			if src == nil { // another gateway removed it: this one's own view of the site
				src = siteSource(stream, site, w.scope[site])
			}
			if w.addBack(ctx, site, stream, src) {
				w.log.Info("site's source re-added at the hub: nats-server was still waiting on a request the site never got", "site", site, "stream", stream)
			} else {
				missing[stream] = src
			}
		}
		if now.Sub(start) >= siteSourceWindow {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// addBack adds src, the hub's stream's source of site, back, and says whether it did. nats-server
// resumes it where it stood if it knows; else it starts after the last of the site's messages
// the hub holds under its filters (a filtered source: resumeAt), or, for one that takes all, at
// the hub stream's age horizon (siteStart) if the hub holds none of the site's messages; at the
// site's first when that cannot be read (a gateway user from before it could).
func (w *SiteWatch) addBack(ctx context.Context, site, stream string, src *jetstream.StreamSource) bool {
	start := uint64(1)
	s, err := w.hub.Stream(ctx, stream)
	if err == nil {
		maxAge := s.CachedInfo().Config.MaxAge
		if subjects := sourceSubjects(src); len(subjects) > 0 {
			start, err = resumeAt(ctx, w.hub, stream, site, subjects, maxAge)
		} else {
			start, err = siteStart(ctx, w.nc, site, stream, maxAge)
		}
	}
	if err != nil && watchEnded(ctx, err) {
		w.log.Debug("site's source not added back at the hub: the watch ended (the link dropped, or the gateway stops); "+
			"it is added back as the watch ends", "site", site, "stream", stream, "err", err)
		return false
	}
	if err != nil {
		start = 1
		w.log.Warn("site's source re-added at the hub from the site's first record: where the hub's age limit starts at the site is unknown "+
			"(a gateway's NATS user from before it could read it: run corral nats-auth again)", "site", site, "stream", stream, "err", err)
	}
	re := *src
	re.OptStartSeq = start
	err = addSource(ctx, w.hub, stream, site, &re)
	switch {
	case err != nil && watchEnded(ctx, err):
		w.log.Debug("site's source not added back at the hub: the watch ended", "site", site, "stream", stream, "err", err)
	case err != nil:
		w.log.Warn("site's source removed at the hub and not added back yet; trying again (a gateway started with --sites naming the site adds it too)",
			"site", site, "stream", stream, "err", err)
	}
	return err == nil
}

// watchEnded says whether err, a failure of a request made with ctx, came of the watch
// ending rather than of NATS refusing it: ctx cancelled (the link dropped, the gateway stops)
// or the connection closing. Such a failure is no reason to warn, least of all to tell the
// operator to make new NATS users.
func watchEnded(ctx context.Context, err error) bool {
	return errors.Is(ctx.Err(), context.Canceled) || errors.Is(err, context.Canceled) ||
		errors.Is(err, nats.ErrConnectionClosed) || errors.Is(err, nats.ErrConnectionDraining)
}

// idleSources are the hub's streams whose source of site hears nothing from it, or has heard
// nothing since its link came up, upFor ago (none when the hub's stores do not source site, or
// cannot be read now). After a short cut a source last heard before it is not siteSourceIdle
// yet, but its consumer at the site may be gone (the site's server restarted): nats-server
// would find that out at its next health check, within 10 s, and ask again.
func idleSources(ctx context.Context, hub jetstream.JetStream, site string, upFor time.Duration) []string {
	var out []string
	_ = sourcesOfSites(ctx, hub, func(stream, of string, src *jetstream.StreamSourceInfo) {
		if of == site && !heardWithin(src, min(siteSourceIdle, upFor)) {
			out = append(out, stream)
		}
	})
	return out
}

// removeSource removes the hub's stream's source of site from the stream's current
// configuration (what another process changed meanwhile is kept), and returns it: nil when the
// stream has none (another gateway removed it).
func removeSource(ctx context.Context, hub jetstream.JetStream, stream, site string) (*jetstream.StreamSource, error) {
	s, err := hub.Stream(ctx, stream)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", stream, err)
	}
	cfg := s.CachedInfo().Config
	i := slices.IndexFunc(cfg.Sources, func(src *jetstream.StreamSource) bool { return ofSite(src, site) })
	if i < 0 {
		return nil, nil
	}
	src := cfg.Sources[i]
	cfg.Sources = slices.Delete(cfg.Sources, i, i+1)
	if _, err := hub.UpdateStream(ctx, cfg); err != nil {
		return nil, fmt.Errorf("update %s's sources: %w", stream, err)
	}
	return src, nil
}

// addSource adds src, a source of site, to the hub's stream's current configuration, unless it
// has one of site already (another gateway added it).
func addSource(ctx context.Context, hub jetstream.JetStream, stream, site string, src *jetstream.StreamSource) error {
	s, err := hub.Stream(ctx, stream)
	if err != nil {
		return fmt.Errorf("read %s: %w", stream, err)
	}
	cfg := s.CachedInfo().Config
	if slices.ContainsFunc(cfg.Sources, func(s *jetstream.StreamSource) bool { return ofSite(s, site) }) {
		return nil
	}
	cfg.Sources = append(cfg.Sources, src)
	if _, err := hub.UpdateStream(ctx, cfg); err != nil {
		return fmt.Errorf("update %s's sources: %w", stream, err)
	}
	return nil
}
