package broker

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
)

// explainRefusal turns a request that timed out because the server refused to carry it (a
// NATS user whose role may not publish there: the server says so asynchronously, and the
// request just waits) into an error that says so. A connection with ConnectOptions.Refusals
// does not wait that long: its caller's context ends at the refusal.
func explainRefusal(nc *nats.Conn, err error) error {
	if err == nil || !(errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout)) {
		return err
	}
	r := refusalOf(nc.Opts.User, nc.LastError())
	if r == nil {
		return err
	}
	return fmt.Errorf("%w: %w", err, r)
}
