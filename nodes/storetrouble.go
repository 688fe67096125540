package nodes

import (
	"errors"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// storeTrouble is why the stores refuse a write, as far as its error tells, for what the node
// tells the operator to do (storehealth.go). Most often the NATS server is short of disk; a
// bounded bucket (broker/kvconfig.go) refuses a value over its bound, or new keys once full,
// whatever the disk, and broker.ExplainStoreLimit says which bucket and bound in the error.
type storeTrouble int

const (
	troubleDisk     storeTrouble = iota // the NATS server's storage (or anything else)
	troubleTooLarge                     // a value larger than its bucket or the server takes
	troubleFull                         // a bounded bucket full
	troubleLink                         // the node's NATS connection closed, or its credentials refused
)

// troubleOf is the trouble err, a refused write, shows.
func troubleOf(err error) storeTrouble {
	var api *jetstream.APIError
	switch {
	// No write reaches the server at all: whatever its disk (it blamed the disk at a stop).
	case errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, nats.ErrDisconnected), errors.Is(err, nats.ErrAuthorization):
		return troubleLink
	case errors.Is(err, nats.ErrMaxPayload):
		return troubleTooLarge
	case !errors.As(err, &api):
		return troubleDisk
	case api.ErrorCode == jetstream.JSErrCodeStreamMessageExceedsMaximum:
		return troubleTooLarge
	case strings.Contains(api.Description, "maximum bytes"): // 10077, a bucket at its MaxBytes
		return troubleFull
	}
	return troubleDisk
}

// hint is what to do, in sentences.
func (t storeTrouble) hint() string {
	switch t {
	case troubleTooLarge:
		return "A value is larger than its store takes (the error says which bucket and its bound), whatever the disk: a device's " +
			"entry is written cut, an event or task record dropped after its retries; it is a bug to report, with this line"
	case troubleFull:
		return "A bucket is full (the error says which, its bound and how to list its keys): it takes no new keys, and updates " +
			"only no larger than the values they replace, whatever the disk; look for the node that writes far more keys than its devices need"
	case troubleLink:
		return "This node's connection to NATS is closed or its credentials are refused, so no write reaches the server, whatever " +
			"its disk: see the node's NATS connection lines (a refused password: re-run corral nats-auth or fix the secret; a " +
			"connection closed for good: the node's /healthz fails, restart it)"
	}
	return "Check the data disk of the NATS server (df). Once there is room, corral up's own NATS restarts its JetStream " +
		"by itself; restart any other NATS server (its stores take no writes until then)"
}

// short is hint in a few words, for a reminder or the node's readiness.
func (t storeTrouble) short() string {
	switch t {
	case troubleTooLarge:
		return "a value too large for its bucket: a bug to report"
	case troubleFull:
		return "a bucket full: list its keys"
	case troubleLink:
		return "its NATS connection is closed or refused, not the disk: see its NATS connection lines"
	}
	return "check the NATS server's data disk"
}
