package agent_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/agent"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

func rateLimited(retryAfter string) modelsim.Turn {
	turn := modelsim.Fail(http.StatusTooManyRequests, "Rate limit reached")
	turn.Header = map[string]string{"Retry-After": retryAfter}
	return turn
}

// A 429's Retry-After is waited for before the retry, not the usual half second.
func TestRetryAfterIsHonoured(t *testing.T) {
	t.Parallel()
	r := newRig(t, rateLimited("2"), plan(step{Title: "Look"}), finished("seen"))
	task := run(t, context.Background(), r.options("Look at the screen"))

	wantStatus(t, task, agent.StatusFinished)
	reqs := r.srv.Requests()
	if gap := reqs[1].Received.Sub(reqs[0].Received); gap < 2*time.Second {
		t.Errorf("retried %s after a 429 with Retry-After: 2", gap)
	}
}

// A Retry-After longer than the agent waits, or than the task has left, fails the task at
// once, saying so.
func TestRetryAfterTooLongFailsAtOnce(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, retryAfter string
		timeout          time.Duration
		want             string
	}{
		{"over the cap", "120", time.Hour, "not retried, as that is more than the 30s a task waits"},
		{"past the deadline", "20", 10 * time.Second, "not retried, as the task has only"},
		{"a date past the deadline", time.Now().Add(25 * time.Second).UTC().Format(http.TimeFormat), 10 * time.Second, "not retried, as the task has only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, rateLimited(c.retryAfter), plan(step{Title: "Look"}), finished("seen"))
			ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
			defer cancel()
			start := time.Now()
			task := run(t, ctx, r.options("Look at the screen"))

			wantStatus(t, task, agent.StatusFailed)
			if !strings.Contains(task.Error, c.want) || !strings.Contains(task.Error, "it asks to retry after") {
				t.Errorf("error %q, want it to say %q", task.Error, c.want)
			}
			if took := time.Since(start); took > 5*time.Second || task.ModelCalls != 1 {
				t.Errorf("failed after %s and %d model calls, want at once after 1", took, task.ModelCalls)
			}
		})
	}
}
