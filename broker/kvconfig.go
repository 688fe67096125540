package broker

import (
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Rollups. NATS permissions check a publish's subject, never its headers, and a message with
// the header Nats-Rollup: all purges its whole stream: a node's NATS user, which may publish to
// its own keys ($KV.corral_devices.<node>.>), would wipe every node's entries with one such
// write to one of them. nats-server refuses a rollup in a stream without AllowRollup (stream.go,
// processJetStreamMsg: "rollup not permitted"), so the stores a node writes do not allow it.
// Corral purges nothing in them: it deletes (a delete marker, no rollup).

// nodeWritten says whether a node's NATS user may write keys of bucket (auth.go): those
// buckets refuse rollups.
func nodeWritten(bucket string) bool {
	switch bucket {
	case RegistryBucket, LeaseBucket, NodeBucket, CalibrationBucket:
		return true
	}
	return false
}

// kvStreamConfig is the stream behind a key-value bucket as nats.go makes it (jetstream/kv.go,
// prepareKeyValueConfig; TestKVStreamConfigIsNATSGos holds them equal), but with rollups only
// when rollups is set: nats.go has no setting for them and always allows them. Corral's
// sources are always the same bucket at a site (siteSources), which nats.go takes unchanged.
func kvStreamConfig(cfg jetstream.KeyValueConfig, rollups bool) jetstream.StreamConfig {
	dup := 2 * time.Minute
	if cfg.TTL > 0 && cfg.TTL < dup {
		dup = cfg.TTL
	}
	maxBytes := cfg.MaxBytes
	if maxBytes == 0 {
		maxBytes = -1
	}
	return jetstream.StreamConfig{
		Name:              kvStream(cfg.Bucket),
		Description:       cfg.Description,
		Subjects:          []string{"$KV." + cfg.Bucket + ".>"},
		MaxMsgsPerSubject: int64(max(cfg.History, 1)),
		MaxBytes:          maxBytes,
		MaxAge:            cfg.TTL,
		MaxMsgSize:        -1,
		Storage:           cfg.Storage,
		Replicas:          max(cfg.Replicas, 1),
		AllowRollup:       rollups,
		DenyDelete:        true,
		Duplicates:        dup,
		MaxMsgs:           -1,
		MaxConsumers:      -1,
		AllowDirect:       true,
		Discard:           jetstream.DiscardNew,
		Sources:           cfg.Sources,
	}
}
