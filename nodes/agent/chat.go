package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/corral-farm/corral/nodes/agent/model"
)

const (
	// retryPause is the wait before the one retry of a model call that failed on the server's
	// side: long tasks should not die of one proxy hiccup.
	retryPause = 500 * time.Millisecond
	// maxRetryAfter is the longest wait a server's Retry-After gets; a server that asks for
	// more is out for longer than a task should sit holding its device.
	maxRetryAfter = 30 * time.Second
)

// chat asks the model one turn with tools, counting the call and its tokens against the
// budget. An answer with nothing in it comes back as an empty Response, not an error, so the
// caller can nudge the model as it does after text alone; unless the model's token limit or a
// content filter ended it, which a nudge meets again: that fails, saying so. A streaming model's text goes out as
// thinking events of step while it writes.
func (r *runner) chat(ctx context.Context, step int, c *conversation, tools []model.Tool) (model.Response, error) {
	t := r.task
	if err := r.guard.tokensLeft(t.Usage); err != nil {
		return model.Response{}, err
	}
	for attempt := 0; ; attempt++ {
		req := model.Request{Messages: c.msgs, Tools: tools}
		var th *thinking
		if r.live {
			th = r.newThinking(step)
			req.OnDelta = th.delta
		}
		asked := time.Now()
		resp, err := r.o.Model.Chat(ctx, req)
		if th != nil {
			th.flush() // after a failure too: the model did write what came before it
		}
		t.ModelCalls++
		t.Usage = t.Usage.Add(resp.Usage)
		if err == nil || errors.Is(err, model.ErrEmptyAnswer) {
			if err != nil {
				// Not err: a model that refused says why in its own words, which may repeat the goal.
				r.log.Warn("the model answered nothing", "finish_reason", resp.FinishReason)
				if model.Final(resp.FinishReason) { // asked again, it meets the same limit or filter: err says what to do
					return resp, failed(failModel, fmt.Errorf("model call: %w", err))
				}
			}
			return resp, r.guard.tokens(t.Usage)
		}
		if ctx.Err() != nil {
			mw := &modelWait{err: err, waited: time.Since(asked)}
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				r.log.Warn("the model did not answer before the task's deadline", append(modelFailure(err), "waited", mw.waited.Round(time.Millisecond))...)
			}
			return resp, mw
		}
		if attempt > 0 || !(errors.Is(err, model.ErrServer) || errors.Is(err, model.ErrRateLimited)) {
			r.log.Warn("model call failed", append(modelFailure(err), "attempt", attempt+1)...)
			return resp, failed(failModel, fmt.Errorf("model call: %w", err))
		}
		wait, waitErr := retryWait(ctx, err)
		if waitErr != nil {
			r.log.Warn("model call failed; not retried", modelFailure(waitErr)...)
			return resp, failed(failModel, fmt.Errorf("model call: %w", waitErr))
		}
		r.log.Warn("model call failed; retrying once", append(modelFailure(err), "wait", wait)...)
		if err := pause(ctx, wait); err != nil {
			return resp, err
		}
	}
}

// retryWait is how long to wait before retrying a call that failed with err: the server's
// Retry-After when it sent one, else retryPause. A wait longer than maxRetryAfter, or than
// what is left of the task's time, fails at once instead (err then says so).
func retryWait(ctx context.Context, err error) (time.Duration, error) {
	after, ok := model.RetryAfter(err)
	if !ok {
		return retryPause, nil
	}
	if after > maxRetryAfter {
		return 0, fmt.Errorf("%w: not retried, as that is more than the %s a task waits: try again later", err, maxRetryAfter)
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < after {
		return 0, fmt.Errorf("%w: not retried, as the task has only %s left: try again later, or give the task more time (timeoutMs)",
			err, time.Until(dl).Round(100*time.Millisecond))
	}
	return after, nil
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
