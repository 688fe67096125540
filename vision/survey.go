package vision

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// survey pings the workers (micro's PING, which every running worker answers at once, whatever
// it works on) and collects who answers, until the ping's bound (pingBound, or the attempt if
// shorter) or, sooner, until enough says the answers so far are enough. Answers that come
// after it returned are still recorded in c.workers until the bound: a ping learns every live
// worker, not only the first. It returns nats.ErrNoResponders when no worker listens.
func (c *Client) survey(ctx context.Context, enough func(answered map[string]bool) bool) (map[string]bool, time.Duration, error) {
	bound := min(pingBound, c.attempt)
	var mu sync.Mutex
	answered := map[string]bool{}
	noResponders := false
	news := make(chan struct{}, 1)
	inbox, closeIt, err := c.pings.open(c.nc, func(m *nats.Msg) {
		var id struct {
			ID string `json:"id"`
		}
		mu.Lock()
		if m.Header.Get("Status") == "503" && len(m.Data) == 0 {
			noResponders = true
		} else if json.Unmarshal(m.Data, &id) == nil && id.ID != "" {
			answered[id.ID] = true
			c.workers.answered(id.ID)
		}
		mu.Unlock()
		select {
		case news <- struct{}{}:
		default:
		}
	})
	if err != nil {
		return nil, bound, fmt.Errorf("vision: ping the workers: %w", err)
	}
	stop := time.AfterFunc(bound, closeIt)
	if err := c.nc.PublishRequest(PingSubject, inbox, nil); err != nil {
		stop.Stop()
		closeIt()
		return nil, bound, fmt.Errorf("vision: ping the workers: %w", err)
	}
	timer := time.NewTimer(bound)
	defer timer.Stop()
	snapshot := func() (map[string]bool, bool, bool) {
		mu.Lock()
		defer mu.Unlock()
		out := make(map[string]bool, len(answered))
		for id := range answered {
			out[id] = true
		}
		return out, noResponders, len(out) > 0 && enough(out)
	}
	for {
		select {
		case <-news:
			got, none, done := snapshot()
			switch {
			case none:
				return nil, bound, nats.ErrNoResponders
			case done:
				return got, bound, nil
			}
		case <-timer.C:
			got, _, _ := snapshot()
			return got, bound, nil
		case <-ctx.Done():
			got, _, _ := snapshot()
			return got, bound, ctx.Err()
		}
	}
}
