package broker

import (
	"context"
	"fmt"
	"slices"
	"time"

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
// link dropped). A source removed and not added back is added back before it returns.
func (w *SiteWatch) kickSources(ctx context.Context, site string) {
	start := time.Now()
	t := time.NewTicker(siteSourcePoll)
	defer t.Stop()
	kicked := map[string]time.Time{}
	missing := map[string]bool{} // removed, not added back yet
	defer func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		for stream := range missing {
			w.addBack(ctx, site, stream)
		}
	}()
	for {
		for stream := range missing {
			if w.addBack(ctx, site, stream) {
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
			if err := setSource(ctx, w.hub, stream, site, 0); err != nil {
				w.log.Warn("site's idle source not re-added at the hub; nats-server retries it itself, within minutes", "site", site, "stream", stream, "err", err)
				continue
			}
			if w.addBack(ctx, site, stream) {
				w.log.Info("site's source re-added at the hub: nats-server was still waiting on a request the site never got", "site", site, "stream", stream)
			} else {
				missing[stream] = true
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

// addBack adds the hub's stream's source of site back, and says whether it did. It starts at
// the hub stream's age horizon (siteStart) if the hub holds none of the site's messages; at the
// site's first when that cannot be read (a gateway user from before it could).
func (w *SiteWatch) addBack(ctx context.Context, site, stream string) bool {
	start := uint64(1)
	s, err := w.hub.Stream(ctx, stream)
	if err == nil {
		start, err = siteStart(ctx, w.nc, site, stream, s.CachedInfo().Config.MaxAge)
	}
	if err != nil {
		start = 1
		w.log.Warn("site's source re-added at the hub from the site's first record: where the hub's age limit starts at the site is unknown "+
			"(a gateway's NATS user from before it could read it: run corral nats-auth again)", "site", site, "stream", stream, "err", err)
	}
	err = setSource(ctx, w.hub, stream, site, start)
	if err != nil {
		w.log.Warn("site's source removed at the hub and not added back yet; trying again (a gateway started with --sites naming the site adds it too)",
			"site", site, "stream", stream, "err", err)
	}
	return err == nil
}

// idleSources are the hub's streams whose source of site hears nothing from it, or has heard
// nothing since its link came up, upFor ago (none when the hub's stores do not source site, or
// cannot be read now). After a short cut a source last heard before it is not siteSourceIdle
// yet, but its consumer at the site may be gone (the site's server restarted): nats-server
// would find that out at its next health check, within 10 s, and ask again.
func idleSources(ctx context.Context, hub jetstream.JetStream, site string, upFor time.Duration) []string {
	var out []string
	for _, stream := range sourcedStreams() {
		s, err := hub.Stream(ctx, stream)
		if err != nil {
			continue
		}
		for _, src := range s.CachedInfo().Sources {
			if src.External != nil && src.External.APIPrefix == siteAPI(site) && (src.Active < 0 || src.Active > min(siteSourceIdle, upFor)) {
				out = append(out, stream)
			}
		}
	}
	return out
}

// setSource adds the hub's stream's source of site, starting at start when the hub holds none
// of the site's messages, or removes it (start 0), to the stream's current configuration: what
// another process changed meanwhile is kept.
func setSource(ctx context.Context, hub jetstream.JetStream, stream, site string, start uint64) error {
	on := start > 0
	s, err := hub.Stream(ctx, stream)
	if err != nil {
		return fmt.Errorf("read %s: %w", stream, err)
	}
	cfg := s.CachedInfo().Config
	ofSite := func(src *jetstream.StreamSource) bool {
		return src.External != nil && src.External.APIPrefix == siteAPI(site)
	}
	switch has := slices.ContainsFunc(cfg.Sources, ofSite); {
	case on && has, !on && !has:
		return nil // another gateway did it
	case on:
		src := siteSources(stream, []string{site})
		src[0].OptStartSeq = start
		cfg.Sources = append(cfg.Sources, src...)
	default:
		cfg.Sources = slices.DeleteFunc(cfg.Sources, ofSite)
	}
	if _, err := hub.UpdateStream(ctx, cfg); err != nil {
		return fmt.Errorf("update %s's sources: %w", stream, err)
	}
	return nil
}
