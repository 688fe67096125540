package broker

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
)

// explainRefusal turns a request that timed out because the server refused to carry it (a
// NATS user whose role may not publish there: the server says so asynchronously, and the
// request just waits) into an error that says so.
func explainRefusal(nc *nats.Conn, err error) error {
	if err == nil || !(errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout)) {
		return err
	}
	last := nc.LastError()
	if last == nil || !errors.Is(last, nats.ErrPermissionViolation) {
		return err
	}
	return fmt.Errorf("%w: NATS refused it (%v): this NATS user's role may not do this; node requests need the admin "+
		"or gateway role (docs/operations.md, NATS roles)", err, last)
}
