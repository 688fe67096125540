package broker

import (
	"context"
	"errors"
	"fmt"
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
	Events   jetstream.Stream
}

// StoreOptions size the stores.
type StoreOptions struct {
	// Replicas for a clustered NATS (1 on a single server).
	Replicas int
	// EventsMaxAge and EventsMaxBytes bound the event stream.
	EventsMaxAge   time.Duration
	EventsMaxBytes int64
}

// EnsureStores creates the buckets and the stream if they are missing, and opens them.
// It is safe to call from every process at every start.
func EnsureStores(ctx context.Context, nc *nats.Conn, o StoreOptions) (*Stores, error) {
	if o.Replicas <= 0 {
		o.Replicas = 1
	}
	if o.EventsMaxAge <= 0 {
		o.EventsMaxAge = 7 * 24 * time.Hour
	}
	if o.EventsMaxBytes <= 0 {
		o.EventsMaxBytes = 1 << 30
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	s := &Stores{JS: js}
	kv := func(name, desc string, ttl time.Duration) (jetstream.KeyValue, error) {
		b, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket: name, Description: desc, History: 1, TTL: ttl, Replicas: o.Replicas, Storage: jetstream.FileStorage,
		})
		if err != nil {
			return nil, fmt.Errorf("key-value bucket %s: %w (is JetStream enabled on the NATS server?)", name, err)
		}
		return b, nil
	}
	if s.Registry, err = kv(RegistryBucket, "Corral device registry, one entry per serial", 0); err != nil {
		return nil, err
	}
	if s.Leases, err = kv(LeaseBucket, "Corral leases mirrored by their owner node, one entry per serial", 0); err != nil {
		return nil, err
	}
	if s.Sessions, err = kv(SessionBucket, "Corral MCP sessions' selected device, and each session's latest task (latest_*)", 24*time.Hour); err != nil {
		return nil, err
	}
	s.Events, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        EventStream,
		Description: "Corral device, lease and node events, and task records",
		Subjects:    []string{Events},
		Retention:   jetstream.LimitsPolicy,
		MaxAge:      o.EventsMaxAge,
		MaxBytes:    o.EventsMaxBytes,
		Storage:     jetstream.FileStorage,
		Replicas:    o.Replicas,
		Discard:     jetstream.DiscardOld,
		AllowDirect: true,
	})
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", EventStream, err)
	}
	return s, nil
}

// ErrNotFound reports a key, task or record that does not exist.
var ErrNotFound = errors.New("not found")
