package broker

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// streamMaxBytes is JetStream's refusal of a write to a stream at its MaxBytes that refuses
// new messages (every KV bucket: it never drops old values for new).
const streamMaxBytes = 10077

// SessionsFull says whether err is NATS refusing a session write because the sessions' bucket
// is at its cap (StoreOptions.SessionsMaxBytes).
func SessionsFull(err error) bool {
	var api *jetstream.APIError
	if errors.As(err, &api) {
		return api.ErrorCode == streamMaxBytes
	}
	return err != nil && strings.Contains(err.Error(), "maximum bytes exceeded")
}

// sessionWriteErr wraps a failed write to the sessions' bucket, saying what to do when it is full.
func sessionWriteErr(what string, err error) error {
	if SessionsFull(err) {
		return fmt.Errorf("%s: %w (the NATS bucket %s is full: its entries expire 24 h after their last write; "+
			"an operator raises --sessions-max-bytes on the gateways, or finds the client that opens a session per call: docs/operations.md, Disk)",
			what, err, SessionBucket)
	}
	return fmt.Errorf("%s: %w", what, err)
}
