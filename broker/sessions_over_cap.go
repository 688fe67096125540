package broker

import (
	"context"
	"log/slog"

	"github.com/nats-io/nats.go/jetstream"
)

// WarnSessionsOverCap says at WARN that the sessions' bucket kv (Stores.Sessions) holds more
// than its cap: a gateway started with --sessions-max-bytes under what the bucket held. NATS
// keeps what it holds and refuses every new session's write until enough entries expire;
// without this line the first sign was each new session failing. A gateway calls it once at
// its start, after EnsureStores gave the bucket its cap. Its metrics show the same:
// corral_sessions_store_bytes over corral_sessions_store_max_bytes.
func WarnSessionsOverCap(ctx context.Context, kv jetstream.KeyValue, log *slog.Logger) {
	st, err := kv.Status(ctx)
	if err != nil {
		return // NATS away: the gateway's start says so by other means
	}
	b, ok := st.(*jetstream.KeyValueBucketStatus)
	if !ok {
		return
	}
	held, limit := int64(b.StreamInfo().State.Bytes), b.StreamInfo().Config.MaxBytes
	if limit <= 0 || held <= limit {
		return
	}
	log.Warn("the sessions' bucket holds more than --sessions-max-bytes: NATS keeps what it holds and refuses every new session's writes "+
		"(select_device cannot remember a device, a session's DELETE fails, other gateways miss its latest tasks) until entries expire, "+
		"24 h after their last write; raise --sessions-max-bytes above what it holds on every gateway, or accept the refusals until then "+
		"(docs/operations.md, Sessions store full)",
		"bucket", SessionBucket, "holds", FormatSize(held), "limit", FormatSize(limit))
}
