package broker

import (
	"log/slog"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// An older gateway's start makes the stores as its version does: rollups allowed on every
// bucket (and on the screenshots), no bucket bounds, no cap on the sessions. The next start of
// a gateway of this version brings them back, and says so, so that an operator rolling gateways
// knows the protection was off meanwhile (docs/operations.md, Upgrades and version skew).

// loosenedParts lists what want, Corral's stream, bounds or refuses that have, the stream as
// it is, does not: what a gateway's update restores.
func loosenedParts(have, want jetstream.StreamConfig) []string {
	var out []string
	if have.AllowRollup && !want.AllowRollup {
		out = append(out, "refuses rollups (Nats-Rollup)")
	}
	if want.MaxBytes > 0 && have.MaxBytes <= 0 {
		out = append(out, "holds at most "+FormatSize(want.MaxBytes))
	}
	if want.MaxMsgSize > 0 && have.MaxMsgSize <= 0 {
		out = append(out, "takes values of at most "+FormatSize(int64(want.MaxMsgSize)))
	}
	return out
}

// sayTightened says what stream's update restored (loosenedParts), once for the stream.
func sayTightened(log *slog.Logger, stream string, restored []string) {
	if len(restored) == 0 {
		return
	}
	log.Info("store tightened again: an older Corral's gateway had loosened it as it started (or an older Corral made it so)",
		"stream", stream, "restored", strings.Join(restored, "; "))
}
