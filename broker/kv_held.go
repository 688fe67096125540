package broker

import (
	"context"
	"log/slog"

	"github.com/nats-io/nats.go/jetstream"
)

// roomForHeld is the MaxBytes to give bucket, bounded at limit: an older Corral's bucket that
// already holds more than limit keeps what it holds and a quarter of limit more. Bounded at
// limit, the full bucket would refuse every update that grows a value (an entry becoming busy,
// a node's epoch floor at its restart) and nodes could not start. A bucket filled under the
// bound stays at it, however often gateways start.
func roomForHeld(ctx context.Context, js jetstream.JetStream, bucket string, limit int64, log *slog.Logger) int64 {
	st, err := js.Stream(ctx, kvStream(bucket))
	if err != nil {
		return limit // none yet, or unreadable: the update says why
	}
	held := int64(st.CachedInfo().State.Bytes)
	if held <= limit {
		return limit
	}
	kept := held + limit/4
	if log != nil {
		log.Warn("a bucket holds more than its bound: kept larger, with room for updates; look at its keys by node and delete what no node needs",
			"bucket", bucket, "holds", FormatSize(held), "bound", FormatSize(limit), "kept", FormatSize(kept), "list", "nats kv ls "+bucket)
	}
	return kept
}
