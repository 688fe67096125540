package broker

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/nats-io/nats.go/jetstream"
)

// A site writes into its own stores whatever its NATS lets it: its server, or any node there,
// may write registry entries, lease mirrors and events under another site's node ids, or the
// hub's. When the hub knows a site's nodes (StoreOptions.SiteNodes: corral gateway and corral
// up --site-nodes), its sources of that site take those nodes' subjects only, and the hub's
// gateways restore and learn only those nodes' entries from it (SiteWatch). A site the hub
// knows no nodes of is sourced whole, as before.
//
// Every subject a source takes names its node: registry and lease keys are <node>.<serial>
// (keys.go), events corral.v1.events.<kind>.<node>.… (subjects.go). Keys of a Corral from
// before node-scoped keys (the serial alone), and its task records (events.task.<id>), name
// no node: a scoped site's are not taken.

// siteFilters are the subjects of nodes that the hub's stream named stream takes from a site:
// sorted, one a node, none for a stream that is not sourced.
func siteFilters(stream string, nodes []string) []string {
	var out []string
	for _, n := range slices.Compact(slices.Sorted(slices.Values(nodes))) {
		switch stream {
		case kvStream(RegistryBucket):
			out = append(out, "$KV."+RegistryBucket+"."+n+".>")
		case kvStream(LeaseBucket):
			out = append(out, "$KV."+LeaseBucket+"."+n+".>")
		case EventStream:
			out = append(out, Prefix+".events.*."+n+".>")
		}
	}
	return out
}

// siteSource is the hub's source of stream at site: the site's same store, read through its
// JetStream domain, from its first sequence, and with nodes only their subjects (one transform
// each, which keeps the subject: a source takes one filter, or transforms). A source resumes
// after the last message of the site's that the hub's stream holds; one that holds none (a new
// site, or a source added again) starts at its OptStartSeq. Without one, nats-server starts it
// at the time of the hub stream's last message once its first sequence is above 1 (old events
// aged out, a key updated), and a site's records written before it were never taken.
func siteSource(stream, site string, nodes []string) *jetstream.StreamSource {
	src := &jetstream.StreamSource{Name: stream, OptStartSeq: 1, External: &jetstream.ExternalStream{APIPrefix: siteAPI(site)}}
	for _, f := range siteFilters(stream, nodes) {
		src.SubjectTransforms = append(src.SubjectTransforms, jetstream.SubjectTransformConfig{Source: f})
	}
	return src
}

// sourceSubjects are the subjects a source takes; none when it takes all.
func sourceSubjects(src *jetstream.StreamSource) []string {
	if src.FilterSubject != "" {
		return []string{src.FilterSubject}
	}
	var out []string
	for _, t := range src.SubjectTransforms {
		out = append(out, t.Source)
	}
	return out
}

// sourceFilters are a source's filters and transforms, in its order, as nats-server tells
// sources apart (its index name holds them): none when it takes all.
func sourceFilters(src *jetstream.StreamSource) []string {
	if src.FilterSubject != "" {
		return []string{src.FilterSubject}
	}
	var out []string
	for _, t := range src.SubjectTransforms {
		out = append(out, t.Source+" "+t.Destination)
	}
	return out
}

// ofSite says whether src is the hub's source of site.
func ofSite(src *jetstream.StreamSource, site string) bool {
	return src.External != nil && src.External.APIPrefix == siteAPI(site)
}

// nodesOf are the nodes of site in scoped; none for a site the hub knows no nodes of.
func nodesOf(scoped []Site, site string) []string {
	var out []string
	for _, s := range scoped {
		if s.Name == site {
			out = append(out, s.Nodes...)
		}
	}
	return out
}

// checkSiteNodes refuses nodes of a site not in sites, and node ids that are no subject token.
func checkSiteNodes(sites []string, scoped []Site) error {
	var errs []error
	for _, s := range scoped {
		if !slices.Contains(sites, s.Name) {
			errs = append(errs, fmt.Errorf("nodes of site %s: it is not one of the hub's sites %v: name it in the sites too", s.Name, sites))
		}
		for _, n := range s.Nodes {
			if n == AnyNode || !validToken(n) || len(n) > 64 {
				errs = append(errs, fmt.Errorf("site %s: node id %q: use letters, digits, '-' and '_' (a node's --node-id)", s.Name, n))
			}
		}
	}
	return errors.Join(errs...)
}

// sources are the sources to give stream: each site's same store (siteSource), limited to the
// site's nodes in scoped, or when sites is nil those the stream has now. A site's source that
// the stream has with the same filters keeps its start (nats-server resumes it where it was);
// one whose filters change is a new source to nats-server, which would take the site's whole
// store again from its start: it starts after the last of the site's messages the hub holds
// (resumeAt).
func sources(ctx context.Context, js jetstream.JetStream, stream string, sites []string, scoped []Site) ([]*jetstream.StreamSource, error) {
	if sites == nil && len(scoped) > 0 {
		return nil, fmt.Errorf("nodes of sites %v given without the hub's sites: name them in the sites too", scoped)
	}
	if err := checkSiteNodes(sites, scoped); err != nil {
		return nil, err
	}
	var now *jetstream.StreamConfig
	st, err := js.Stream(ctx, stream)
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound):
	case err != nil:
		return nil, err
	default:
		cfg := st.CachedInfo().Config
		now = &cfg
	}
	if sites == nil {
		if now == nil {
			return nil, nil
		}
		return now.Sources, nil
	}
	var out []*jetstream.StreamSource
	for _, site := range sites {
		src := siteSource(stream, site, nodesOf(scoped, site))
		if now != nil {
			if src, err = resumed(ctx, js, *now, site, src); err != nil {
				return nil, fmt.Errorf("site %s's source: %w", site, err)
			}
		}
		out = append(out, src)
	}
	return out, nil
}

// resumed is want, the source of site that the stream of configuration now is to have, with
// its start: that of the source it has with the same filters, or after the last of the site's
// messages it holds when the filters change. The changing source is removed first, so that
// none of its messages arrives after that last one is read.
func resumed(ctx context.Context, js jetstream.JetStream, now jetstream.StreamConfig, site string, want *jetstream.StreamSource) (*jetstream.StreamSource, error) {
	i := slices.IndexFunc(now.Sources, func(s *jetstream.StreamSource) bool { return ofSite(s, site) })
	if i < 0 {
		return want, nil // a new site: from its first
	}
	had := now.Sources[i]
	if slices.Equal(sourceFilters(had), sourceFilters(want)) {
		if had.OptStartSeq > 0 {
			want.OptStartSeq = had.OptStartSeq // where it was started, should nats-server not know where it stands yet
		}
		return want, nil
	}
	if _, err := removeSource(ctx, js, now.Name, site); err != nil {
		return nil, err
	}
	// The subjects the source took: those it keeps, or, when it now takes all, those it took.
	taken := sourceSubjects(want)
	if len(taken) == 0 {
		taken = sourceSubjects(had)
	}
	start, err := resumeAt(ctx, js, now.Name, site, taken, now.MaxAge)
	// A site not connected now cannot say where the hub's age limit starts at it: its first.
	if unread := (*siteUnreadError)(nil); err != nil && !errors.As(err, &unread) {
		return nil, err
	}
	want.OptStartSeq = start
	return want, nil
}
