package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// Repairs. NATS checks neither a new stream's subjects nor its republish, mirror or sources
// against the permissions of the user who creates it, and a node's NATS user may create the
// stores it writes (auth.go, nodeStreams). A node that made one first could have given it more
// subjects (another user's inbox: the replies it gets), a republish to a subject of its own, a
// mirror or sources of a store it may not read: it would then read what it must not. So a
// gateway's start makes each store exactly Corral's: its own subjects, no republish, no mirror,
// and no sources but the hub's of its edge sites (sites.go); what it removes is said at WARN.
// What nats-server cannot change in a stream (its storage, say) stops the start with the store
// named, what differs, and how an admin fixes it.

// StoreConfigError is a store that exists with settings a gateway cannot change to Corral's.
type StoreConfigError struct {
	Stream  string
	Differs []string // what differs, and Corral's value
}

func (e *StoreConfigError) Error() string {
	return fmt.Sprintf("stream %s exists with settings Corral cannot change: %s. Corral did not make it so (a node's NATS user may create it): "+
		"whoever runs the NATS server removes it, `nats stream rm %s` as a NATS user that may (none of Corral's roles may; what it holds is lost, "+
		"nodes write their entries again), and the gateway's next start makes it as Corral does",
		e.Stream, strings.Join(e.Differs, "; "), e.Stream)
}

// createOrRepair creates the stream of want, or brings the existing one to want, saying at WARN
// what it removed of what Corral never sets (foreignParts).
func createOrRepair(ctx context.Context, js jetstream.JetStream, want jetstream.StreamConfig, log *slog.Logger) (jetstream.Stream, error) {
	st, err := js.Stream(ctx, want.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		if st, err = js.CreateStream(ctx, want); !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			return st, err
		}
		st, err = js.Stream(ctx, want.Name) // another process made it meanwhile
	}
	if err != nil {
		return nil, err
	}
	have := st.CachedInfo().Config
	if fixed := unchangeable(have, want); len(fixed) > 0 {
		return nil, &StoreConfigError{Stream: want.Name, Differs: fixed}
	}
	removed, restored := foreignParts(have, want), loosenedParts(have, want)
	st, err = js.UpdateStream(ctx, want)
	const invalidConfig, mirrorNotUpdatable = 10052, 10055
	if api := (*jetstream.APIError)(nil); errors.As(err, &api) && (api.ErrorCode == invalidConfig || api.ErrorCode == mirrorNotUpdatable) {
		return nil, &StoreConfigError{Stream: want.Name, Differs: []string{api.Description}}
	}
	if err != nil {
		return nil, err
	}
	if len(removed) > 0 {
		log.Warn("store repaired: it had settings Corral never gives it, which let a NATS user read what it may not; removed "+
			"(a node's NATS user may create this store: look for the node that made it)", "stream", want.Name, "removed", strings.Join(removed, "; "))
	}
	sayTightened(log, want.Name, restored)
	return st, nil
}

// createOnly opens the stream of want, creating it when missing, for a process that may not
// change it (a node, the CLI): what it has that leaks (foreignParts; a hub's sources of its
// sites are Corral's) is said at WARN, with the fix, and the process goes on with it.
func createOnly(ctx context.Context, js jetstream.JetStream, want jetstream.StreamConfig, log *slog.Logger) (jetstream.Stream, error) {
	st, err := js.Stream(ctx, want.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		if st, err = js.CreateStream(ctx, want); errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			st, err = js.Stream(ctx, want.Name) // another process made it meanwhile
		}
	}
	if err != nil {
		return nil, err
	}
	have := st.CachedInfo().Config
	if sourced(want.Name) {
		want.Sources = siteSourcesOnly(want.Name, have.Sources)
	}
	if leaks := foreignParts(have, want); len(leaks) > 0 {
		log.Warn("store differs from Corral's in what lets a NATS user read what it may not, and this process may not change it: "+
			"start a gateway, whose start repairs it (a node's NATS user may create this store: look for the node that made it)",
			"stream", want.Name, "differs", strings.Join(leaks, "; "))
	}
	return st, nil
}

// foreignParts lists what have, an existing stream, has that want does not and Corral never
// sets: other subjects, a republish, a mirror, other sources, a subject transform.
func foreignParts(have, want jetstream.StreamConfig) []string {
	var out []string
	if extra := slices.DeleteFunc(slices.Clone(have.Subjects), func(s string) bool { return slices.Contains(want.Subjects, s) }); len(extra) > 0 {
		out = append(out, fmt.Sprintf("subjects %s", strings.Join(extra, " ")))
	}
	if r := have.RePublish; r != nil {
		out = append(out, fmt.Sprintf("republish of %s to %s", r.Source, r.Destination))
	}
	if m := have.Mirror; m != nil {
		out = append(out, "mirror of "+sourceName(m))
	}
	for _, src := range have.Sources {
		if !slices.ContainsFunc(want.Sources, func(w *jetstream.StreamSource) bool { return sameSource(src, w) }) {
			out = append(out, "source "+sourceName(src))
		}
	}
	if t := have.SubjectTransform; t != nil {
		out = append(out, fmt.Sprintf("subject transform of %s to %s", t.Source, t.Destination))
	}
	return out
}

// unchangeable lists what nats-server refuses to change in an update from have to want.
func unchangeable(have, want jetstream.StreamConfig) []string {
	var out []string
	differ := func(what string, h, w any) {
		lower := func(v any) string { return strings.ToLower(fmt.Sprint(v)) } // as nats stream info writes them
		out = append(out, fmt.Sprintf("%s %s (Corral's: %s)", what, lower(h), lower(w)))
	}
	if have.Storage != want.Storage {
		differ("storage", have.Storage, want.Storage)
	}
	if have.Retention != want.Retention && (have.Retention == jetstream.WorkQueuePolicy || want.Retention == jetstream.WorkQueuePolicy) {
		differ("retention", have.Retention, want.Retention)
	}
	if have.Sealed && !want.Sealed {
		differ("sealed", true, false)
	}
	if have.DenyDelete && !want.DenyDelete {
		differ("deny_delete", true, false)
	}
	if have.DenyPurge && !want.DenyPurge {
		differ("deny_purge", true, false)
	}
	if have.AllowMsgTTL && !want.AllowMsgTTL {
		differ("allow_msg_ttl", true, false)
	}
	if have.AllowMsgCounter != want.AllowMsgCounter {
		differ("allow_msg_counter", have.AllowMsgCounter, want.AllowMsgCounter)
	}
	if have.AllowMsgSchedules && !want.AllowMsgSchedules {
		differ("allow_msg_schedules", true, false)
	}
	if have.PersistMode != want.PersistMode {
		differ("persist_mode", have.PersistMode, want.PersistMode)
	}
	return out
}

// siteSourcesOnly keeps of a stream's sources those that are a hub's of its edge sites, as
// siteSource makes them: the same stream, in a site's JetStream domain. A node that made the
// store could have given it a source of another store (the sessions), which is none of those.
func siteSourcesOnly(stream string, srcs []*jetstream.StreamSource) []*jetstream.StreamSource {
	var out []*jetstream.StreamSource
	for _, src := range srcs {
		if src.Name != stream || src.External == nil {
			continue
		}
		if _, ok := siteOfAPI(src.External.APIPrefix); ok {
			out = append(out, src)
		}
	}
	return out
}

// sameSource says whether a and b source the same stream from the same domain.
func sameSource(a, b *jetstream.StreamSource) bool {
	return a.Name == b.Name && (a.External == nil) == (b.External == nil) && (a.External == nil || a.External.APIPrefix == b.External.APIPrefix)
}

// sourceName names a source or a mirror: its stream, and its domain's API when external.
func sourceName(src *jetstream.StreamSource) string {
	if src.External != nil && src.External.APIPrefix != "" {
		return src.Name + " (" + src.External.APIPrefix + ")"
	}
	return src.Name
}
