package broker

import (
	"context"
	"errors"
	"fmt"
	"strings"
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
// buckets refuse rollups, and are bounded (nodeBucketLimits).
func nodeWritten(bucket string) bool {
	_, ok := nodeBucketLimits(bucket)
	return ok
}

// Sizes. A node's NATS user may write any number of keys of any size under its own prefix:
// unbounded, one compromised node could fill the server's JetStream storage, and every store
// would then refuse every process's writes. So each bucket a node writes is bounded: a value
// may be MaxValue bytes (a write over it is refused, 10054, and the writer says so:
// ExplainStoreLimit), and the bucket MaxBytes in all, sized for a farm of 10,000 devices with
// room to spare (store_limits_test.go measures the largest entries Corral writes). When a
// bucket is full, NATS refuses new keys and values larger than the one they replace, and
// takes the rest (updates of a key in place). NATS cannot bound one node's share of a
// bucket: a node filling its bucket still stops the others' new keys (docs/operations.md, NATS roles).
// JetStream reserves each MaxBytes (times the replicas) of its storage when the bucket is made.
type bucketLimits struct {
	MaxValue int32
	MaxBytes int64
}

// nodeBucketLimits are the bounds of bucket when a node's NATS user writes it; false for the
// buckets no node writes.
func nodeBucketLimits(bucket string) (bucketLimits, bool) {
	switch bucket {
	case RegistryBucket: // an entry is 0.5 to 4 KiB (a full queue, a long reason); 10,000 of the largest take 40 MiB
		return bucketLimits{MaxValue: 64 << 10, MaxBytes: 64 << 20}, true
	case LeaseBucket: // a lease is under 1 KiB, one a device
		return bucketLimits{MaxValue: 16 << 10, MaxBytes: 16 << 20}, true
	case NodeBucket: // a claim is some 200 bytes, one a node
		return bucketLimits{MaxValue: 16 << 10, MaxBytes: 8 << 20}, true
	case CalibrationBucket: // a rig's calibration is some 700 bytes, its halt a sentence, a node's epoch floor a number
		return bucketLimits{MaxValue: 64 << 10, MaxBytes: 32 << 20}, true
	}
	return bucketLimits{}, false
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
	maxMsgSize := cfg.MaxValueSize
	if maxMsgSize == 0 {
		maxMsgSize = -1
	}
	return jetstream.StreamConfig{
		Name:              kvStream(cfg.Bucket),
		Description:       cfg.Description,
		Subjects:          []string{"$KV." + cfg.Bucket + ".>"},
		MaxMsgsPerSubject: int64(max(cfg.History, 1)),
		MaxBytes:          maxBytes,
		MaxAge:            cfg.TTL,
		MaxMsgSize:        maxMsgSize,
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

// ExplainStoreLimit is err, a refused write to bucket, with the bucket's bounds when they are
// why: a value over MaxValue (10054), or a full bucket (10077, maximum bytes exceeded). Other
// errors pass unchanged.
func ExplainStoreLimit(bucket string, err error) error {
	l, ok := nodeBucketLimits(bucket)
	var api *jetstream.APIError
	if !ok || !errors.As(err, &api) {
		return err
	}
	const messageTooBig, storeFailed = 10054, 10077
	switch {
	case api.ErrorCode == messageTooBig:
		return fmt.Errorf("%w (%s takes values of at most %s: a larger one is refused, and is a bug to report: no entry of Corral's is near that size)",
			err, bucket, FormatSize(int64(l.MaxValue)))
	case api.ErrorCode == storeFailed && strings.Contains(api.Description, "maximum bytes"):
		return fmt.Errorf("%w (%s is full: it keeps %s in all, room for 10,000 devices; it takes no new keys, and updates only no larger than the values they replace. "+
			"A node writing far more than its devices need fills it: look at the bucket's keys by node, `nats kv ls %s`)",
			err, bucket, FormatSize(l.MaxBytes), bucket)
	}
	return err
}

// boundedKV is a bucket a node writes, whose refused writes say when its bounds are why.
type boundedKV struct {
	jetstream.KeyValue
}

func (b boundedKV) Put(ctx context.Context, key string, value []byte) (uint64, error) {
	rev, err := b.KeyValue.Put(ctx, key, value)
	return rev, ExplainStoreLimit(b.Bucket(), err)
}

func (b boundedKV) PutString(ctx context.Context, key string, value string) (uint64, error) {
	rev, err := b.KeyValue.PutString(ctx, key, value)
	return rev, ExplainStoreLimit(b.Bucket(), err)
}

func (b boundedKV) Create(ctx context.Context, key string, value []byte, opts ...jetstream.KVCreateOpt) (uint64, error) {
	rev, err := b.KeyValue.Create(ctx, key, value, opts...)
	return rev, ExplainStoreLimit(b.Bucket(), err)
}

func (b boundedKV) Update(ctx context.Context, key string, value []byte, last uint64) (uint64, error) {
	rev, err := b.KeyValue.Update(ctx, key, value, last)
	return rev, ExplainStoreLimit(b.Bucket(), err)
}
