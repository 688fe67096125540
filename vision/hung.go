package vision

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
)

// hungCheckEvery is how long a request waits for its answer before the client pings the
// workers, and again as long as it waits: a worker that took the request and hung (kill -STOP)
// answers neither, and the call ends *PingUnanswered within hungCheckEvery+pingBound (5 s),
// not its attempt, even when the tools skipped their ping because a worker answered lately.
// A healthy worker answers most requests sooner, so their calls send no ping; a slow one
// answers the ping at once, whatever it works on.
const hungCheckEvery = 3 * time.Second

// request sends one attempt of a call: the answer, or the attempt's error; ErrNoWorker (a
// *PingUnanswered when workers listen but none answers) when the workers' ping, asked every
// hungCheckEvery while it waits, goes unanswered.
func (c *Client) request(ctx context.Context, subject string, data []byte) (*nats.Msg, error) {
	actx, cancel := context.WithTimeout(ctx, c.attempt)
	defer cancel()
	wctx, hung := context.WithCancelCause(actx)
	defer hung(nil)
	go c.watchHung(wctx, hung)
	msg, err := c.nc.RequestWithContext(wctx, subject, data)
	if cause := context.Cause(wctx); err != nil && errors.Is(cause, ErrNoWorker) {
		return nil, cause
	}
	return msg, err
}

// watchHung pings the workers every hungCheckEvery until ctx ends, and ends it with the ping's
// error when none answers.
func (c *Client) watchHung(ctx context.Context, hung context.CancelCauseFunc) {
	tick := time.NewTicker(hungCheckEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := c.Ping(ctx); errors.Is(err, ErrNoWorker) {
			hung(err)
			return
		}
	}
}
