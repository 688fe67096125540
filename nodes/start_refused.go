package nodes

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go"
)

// NATS refuses a request it does not permit asynchronously (-ERR on the connection), and the
// request just waits: a node whose users come from another Corral version (no right to pull
// from its registry watch) waited on its start for ever, logging the refusal every 10 s and
// serving nothing. While it starts, a refusal of a JetStream request ends the start instead.

// startRefusal returns a context that ends with ctx, or at NATS's first refusal of a JetStream
// request on nc (then context.Cause is a *startRefusedError); stop gives nc its error handler
// back. The handler before it still logs the refusal, with what it knows of the roles.
func startRefusal(ctx context.Context, nc *nats.Conn) (_ context.Context, stop func()) {
	sctx, cancel := context.WithCancelCause(ctx)
	before := nc.ErrorHandler()
	nc.SetErrorHandler(func(c *nats.Conn, sub *nats.Subscription, err error) {
		if errors.Is(err, nats.ErrPermissionViolation) && strings.Contains(err.Error(), `"$JS.`) {
			cancel(&startRefusedError{err: err})
		}
		if before != nil {
			before(c, sub, err)
		}
	})
	return sctx, func() {
		nc.SetErrorHandler(before)
		cancel(context.Canceled)
	}
}

// startRefusedError is NATS refusing the node's user a request its start needs.
type startRefusedError struct{ err error }

func (e *startRefusedError) Error() string {
	return fmt.Sprintf("NATS refused the node's user a request it needs to start (%v): if the NATS server's users "+
		"were made by another Corral version, run corral nats-auth again and reload nats-server (docs/operations.md, "+
		"Upgrades and version skew); otherwise use the NATS context of this node id's user (docs/operations.md, NATS roles)", e.err)
}

func (e *startRefusedError) Unwrap() error { return e.err }

// refusedOr is the refusal that ended sctx, if one did, or else err.
func refusedOr(sctx context.Context, err error) error {
	var r *startRefusedError
	if errors.As(context.Cause(sctx), &r) {
		return fmt.Errorf("node: %w", r)
	}
	return err
}
