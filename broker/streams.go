package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Stores are the JetStream buckets and stream Corral keeps its state in.
type Stores struct {
	JS       jetstream.JetStream
	Registry jetstream.KeyValue
	Leases   jetstream.KeyValue
	Sessions jetstream.KeyValue
	Nodes    jetstream.KeyValue // node id claims (NodeClaim)
	// Calibrations keep what a device's driver measured of its rig (an arm's camera and
	// gantry), so that a node restart does not calibrate again.
	Calibrations jetstream.KeyValue
	Events       jetstream.Stream
	// Screenshots keep the screens of agent tasks' steps (SaveScreenshot, Screenshot).
	Screenshots      jetstream.ObjectStore
	screenshotStream jetstream.Stream // behind Screenshots: read by direct gets (Screenshot)

	sites     []string // a hub's edge sites, whose screenshots it reads from theirs
	siteMu    sync.Mutex
	siteShots map[string]screenshotSource // by site, opened on the first read
}

// StoreOptions size the stores.
type StoreOptions struct {
	// Log, if set, is told of an older Corral's bucket that already holds more than this
	// one's bound (roomForHeld), of what a start repaired (createOrRepair), and with CreateOnly
	// of what of a store lets a NATS user read what it may not (createOnly).
	Log *slog.Logger
	// Replicas of every bucket and of the stream: 3 on a 3-server NATS cluster, so that losing
	// one server loses nothing; 1 on a single server. 0 keeps the replicas of stores that exist
	// (and creates missing ones with 1), so a process started without an opinion never scales
	// a replicated store down.
	Replicas int
	// EventsMaxAge and EventsMaxBytes bound the event stream.
	EventsMaxAge   time.Duration
	EventsMaxBytes int64
	// ScreenshotsMaxAge and ScreenshotsMaxBytes bound the screenshots kept (ScreenshotBucket):
	// older ones expire, and when it is full the oldest are dropped for the new.
	ScreenshotsMaxAge   time.Duration
	ScreenshotsMaxBytes int64
	// SessionsMaxBytes bounds the sessions' bucket (SessionBucket), whose entries expire 24 h
	// after their last write: when it is full, NATS refuses new session writes (a KV bucket
	// refuses new values, it never drops old ones) and they fail saying so (SessionsFull).
	SessionsMaxBytes int64
	// CreateOnly creates the stores that are missing and leaves those that exist as they are:
	// what a node and the CLI do, whose NATS users may create Corral's stores but not change
	// them (a node that could would be able to shorten the event stream's history).
	CreateOnly bool
	// Node opens only the stores a node uses (auth.go's nodeStreams): not the sessions' bucket,
	// which a node's NATS user may neither create nor read (Stores.Sessions stays nil).
	Node bool
	// Sites are the edge sites whose stores this farm's (the hub's) aggregate: the registry,
	// the leases and the event stream source each site's own, in its JetStream domain (the
	// site's name), and catch up when its link heals (leaf.go, sites.go). Nil keeps the sources
	// the stores have, so that a process without an opinion never cuts a hub off its sites.
	Sites []string
	// SiteNodes are the nodes of some of Sites: the sources of such a site take only its nodes'
	// entries and events (sites_sources_scope.go). A site of Sites not in it is sourced whole.
	SiteNodes []Site
}

// The event stream's retention when none is set: a week, and 1 GiB.
const (
	DefaultEventsMaxAge         = 7 * 24 * time.Hour
	DefaultEventsMaxBytes int64 = 1 << 30
)

// The screenshots' retention when none is set: a week, and 1 GiB (some 10,000 screenshots).
const (
	DefaultScreenshotsMaxAge         = 7 * 24 * time.Hour
	DefaultScreenshotsMaxBytes int64 = 1 << 30
)

// DefaultSessionsMaxBytes bounds the sessions' bucket when no size is set: some 640 bytes a
// session (its selection and leases, its latest task, its latest task on the device it used,
// its ended mark; some 160 more for each further device: sessions_size_test.go measures it),
// so about 210,000 sessions a day, two a second all day long.
const DefaultSessionsMaxBytes int64 = 128 << 20

// publishAckTimeout bounds the wait for an asynchronous publish's acknowledgement: during a
// NATS server's loss an ack may never come, and the writer must learn that and retry.
const publishAckTimeout = 5 * time.Second

// EnsureStores creates the buckets and the stream if they are missing, and opens them.
// It is safe to call from every process at every start.
func EnsureStores(ctx context.Context, nc *nats.Conn, o StoreOptions) (*Stores, error) {
	if o.Replicas < 0 || o.Replicas > 5 {
		return nil, fmt.Errorf("stores: %d replicas: JetStream keeps 1 to 5 (3 on a 3-server cluster)", o.Replicas)
	}
	if o.EventsMaxAge <= 0 {
		o.EventsMaxAge = DefaultEventsMaxAge
	}
	if o.EventsMaxBytes <= 0 {
		o.EventsMaxBytes = DefaultEventsMaxBytes
	}
	if o.ScreenshotsMaxAge <= 0 {
		o.ScreenshotsMaxAge = DefaultScreenshotsMaxAge
	}
	if o.ScreenshotsMaxBytes <= 0 {
		o.ScreenshotsMaxBytes = DefaultScreenshotsMaxBytes
	}
	if o.SessionsMaxBytes <= 0 {
		o.SessionsMaxBytes = DefaultSessionsMaxBytes
	}
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(publishAckTimeout))
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	s := &Stores{JS: js, sites: o.Sites, siteShots: map[string]screenshotSource{}}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// hint says what to check when the server refuses a store.
	hint := func(err error) string {
		if StorageShort(err) {
			return storageHint(o)
		}
		var api *jetstream.APIError
		if o.Replicas > 1 && errors.As(err, &api) {
			return fmt.Sprintf("%d replicas need a NATS cluster of at least %d JetStream servers; use --nats-replicas 1 on a single server", o.Replicas, o.Replicas)
		}
		return "is JetStream enabled on the NATS server?"
	}
	// NATS refusing this user a JetStream API subject (another role's context) would leave the
	// request to wait for its timeout: the refusal ends it at once, and is the failure to tell.
	ctx, stopWatch := watchRefusalOf(ctx, nc, func(subject string) bool { return strings.HasPrefix(subject, "$JS.") })
	defer stopWatch()
	storeErr := func(what string, err error) error {
		if r, ok := context.Cause(ctx).(*RefusedError); ok {
			return fmt.Errorf("%s: %w", what, r)
		}
		if c := (*StoreConfigError)(nil); errors.As(err, &c) {
			return fmt.Errorf("%s: %w", what, err) // says what to do itself
		}
		return fmt.Errorf("%s: %w (%s)", what, err, hint(err))
	}
	for _, site := range o.Sites {
		if !ValidSite(site) {
			return nil, fmt.Errorf("stores: site %q: use letters, digits, '-' and '_' (it is the site's JetStream domain)", site)
		}
	}
	// Before anything else is asked: no store may take the answers (streams_capture.go).
	if !o.CreateOnly {
		if err := stopCaptures(ctx, js, inboxSubjects(nc), log); err != nil {
			return nil, fmt.Errorf("stores: %w", err)
		}
	}
	kv := func(name, desc string, ttl time.Duration, maxBytes int64) (jetstream.KeyValue, error) {
		r, err := replicas(ctx, js, "KV_"+name, o.Replicas)
		if err != nil {
			return nil, storeErr("key-value bucket "+name, err)
		}
		cfg := jetstream.KeyValueConfig{Bucket: name, Description: desc, History: 1, TTL: ttl, MaxBytes: maxBytes, Replicas: r, Storage: jetstream.FileStorage}
		limits, bounded := nodeBucketLimits(name)
		if bounded {
			cfg.MaxValueSize, cfg.MaxBytes = limits.MaxValue, limits.MaxBytes
			if !o.CreateOnly {
				cfg.MaxBytes = roomForHeld(ctx, js, name, limits.MaxBytes, o.Log)
			}
		}
		if sourced(kvStream(name)) && !o.CreateOnly {
			if cfg.Sources, err = sources(ctx, js, kvStream(name), o.Sites, o.SiteNodes); err != nil {
				return nil, storeErr("key-value bucket "+name, err)
			}
			cfg.Sources = siteSourcesOnly(kvStream(name), cfg.Sources)
		}
		// The stream is made here, not by nats.go's CreateKeyValue, which always allows
		// rollups: a node's user could purge the bucket through its own keys (kvconfig.go).
		// A gateway's start (not CreateOnly) also brings an older Corral's bucket to the
		// rollups and bounds of this one, and repairs one a node made (streams_repair.go).
		scfg := kvStreamConfig(cfg, !nodeWritten(name))
		var b jetstream.KeyValue
		if o.CreateOnly {
			_, err = createOnly(ctx, js, scfg, log)
		} else {
			_, err = createOrRepair(ctx, js, scfg, log)
		}
		if err == nil {
			b, err = js.KeyValue(ctx, name)
		}
		if err != nil {
			return nil, storeErr("key-value bucket "+name, err)
		}
		if bounded {
			return boundedKV{b}, nil
		}
		return b, nil
	}
	if s.Registry, err = kv(RegistryBucket, "Corral device registry, one entry per serial", 0, 0); err != nil {
		return nil, err
	}
	if s.Leases, err = kv(LeaseBucket, "Corral leases mirrored by their owner node, one entry per serial", 0, 0); err != nil {
		return nil, err
	}
	if !o.Node {
		if s.Sessions, err = kv(SessionBucket, "Corral MCP sessions' selected device, and each session's latest task (latest_*)", 24*time.Hour, o.SessionsMaxBytes); err != nil {
			return nil, err
		}
	}
	if s.Nodes, err = kv(NodeBucket, "Corral node id claims: one key per running node id, kept alive by its node", claimTTL, 0); err != nil {
		return nil, err
	}
	if s.Calibrations, err = kv(CalibrationBucket, "Corral rig calibrations (arm: camera to screen to gantry), one entry per device", 0, 0); err != nil {
		return nil, err
	}
	// The lease groups' bucket is made at a gateway's start, as the other stores are, and not
	// first by whoever groups leases: a node that made it first could read every group's
	// replies (streams_repair.go). Clients open it when they first group leases.
	if !o.CreateOnly {
		r, err := leaseGroupReplicas(ctx, js, o.Replicas)
		if err == nil {
			_, err = createOrRepair(ctx, js, leaseGroupsStreamConfig(r), log)
		}
		if err != nil {
			return nil, storeErr("key-value bucket "+LeaseGroupBucket, err)
		}
	}
	stream := func(cfg jetstream.StreamConfig) (jetstream.Stream, error) {
		r, err := replicas(ctx, js, cfg.Name, o.Replicas)
		if err == nil && sourced(cfg.Name) && !o.CreateOnly {
			cfg.Sources, err = sources(ctx, js, cfg.Name, o.Sites, o.SiteNodes)
			cfg.Sources = siteSourcesOnly(cfg.Name, cfg.Sources)
		}
		if err != nil {
			return nil, storeErr("stream "+cfg.Name, err)
		}
		cfg.Storage, cfg.Replicas, cfg.Retention, cfg.AllowDirect = jetstream.FileStorage, r, jetstream.LimitsPolicy, true
		var st jetstream.Stream
		if o.CreateOnly {
			st, err = createOnly(ctx, js, cfg, log)
		} else {
			st, err = createOrRepair(ctx, js, cfg, log)
		}
		if err != nil {
			return nil, storeErr("stream "+cfg.Name, err)
		}
		return st, nil
	}
	if s.Events, err = stream(jetstream.StreamConfig{
		Name:        EventStream,
		Description: "Corral device, lease and node events, and task records",
		Subjects:    []string{Events},
		MaxAge:      o.EventsMaxAge,
		MaxBytes:    o.EventsMaxBytes,
		Discard:     jetstream.DiscardOld,
	}); err != nil {
		return nil, err
	}
	// The screenshots' object store is made as nats.go makes one (its subjects), but drops the
	// oldest when full where nats.go would refuse the newest, and refuses rollups, which nats.go
	// allows for its metadata: every node may write the bucket, and one rollup would purge it
	// all (kvconfig.go). Screenshots are written without them (screenshot_put.go). Its messages
	// are bounded (a chunk, or metadata); one node's share of it cannot be (docs/operations.md, NATS roles).
	if s.screenshotStream, err = stream(jetstream.StreamConfig{
		Name:        objStream(ScreenshotBucket),
		Description: "Corral task screenshots (agent task steps), JPEG",
		Subjects:    []string{"$O." + ScreenshotBucket + ".C.>", "$O." + ScreenshotBucket + ".M.>"},
		MaxAge:      o.ScreenshotsMaxAge,
		MaxBytes:    o.ScreenshotsMaxBytes,
		MaxMsgSize:  screenshotMaxMsg,
		Discard:     jetstream.DiscardOld,
	}); err != nil {
		return nil, err
	}
	if s.Screenshots, err = js.ObjectStore(ctx, ScreenshotBucket); err != nil {
		return nil, fmt.Errorf("object store %s: %w", ScreenshotBucket, err)
	}
	return s, nil
}

// StorageShort says whether err is JetStream refusing for want of storage: a stream whose
// MaxBytes the server's storage cannot reserve (10047), or a write to a full store (10023).
func StorageShort(err error) bool {
	const insufficientResources, storageExceeded = 10023, 10047
	var api *jetstream.APIError
	return errors.As(err, &api) && (api.ErrorCode == insufficientResources || api.ErrorCode == storageExceeded)
}

// storageHint says what Corral's streams reserve of the server's JetStream storage, and how
// to need less.
func storageHint(o StoreOptions) string {
	return fmt.Sprintf("the NATS server's JetStream storage is short: Corral's streams reserve their caps in it, %s for %s "+
		"(--events-max-bytes) and %s for the screenshots (--screenshots-max-bytes), and %s for the sessions (--sessions-max-bytes), "+
		"and %s for the buckets the nodes write (fixed), times their replicas; lower those flags, or give JetStream more room "+
		"(free space on its store's disk, or a larger max_file_store)",
		FormatSize(o.EventsMaxBytes), EventStream, FormatSize(o.ScreenshotsMaxBytes), FormatSize(o.SessionsMaxBytes), FormatSize(nodeBucketsBytes()))
}

// nodeBucketsBytes is what the buckets nodes write reserve in all (nodeBucketLimits).
func nodeBucketsBytes() int64 {
	var n int64
	for _, b := range []string{RegistryBucket, LeaseBucket, NodeBucket, CalibrationBucket} {
		l, _ := nodeBucketLimits(b)
		n += l.MaxBytes
	}
	return n
}

// FormatSize writes a byte count as the size flags take it (1GiB, 200MiB, 512KiB, bytes), or
// in MiB to a tenth when it is no whole number of them (a disk's free space).
func FormatSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// replicas is the replica count to give stream: want, or when want is 0 what the stream has
// now (1 for a new one).
func replicas(ctx context.Context, js jetstream.JetStream, stream string, want int) (int, error) {
	if want > 0 {
		return want, nil
	}
	st, err := js.Stream(ctx, stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return 1, nil
	}
	if err != nil {
		return 0, err
	}
	return max(st.CachedInfo().Config.Replicas, 1), nil
}

// ErrNotFound reports a key, task or record that does not exist.
var ErrNotFound = errors.New("not found")
