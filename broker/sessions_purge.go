package broker

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// purgeRequest is JetStream's STREAM.PURGE request: the messages on filter but the newest
// keep (0: every one).
type purgeRequest struct {
	Filter string `json:"filter"`
	Keep   uint64 `json:"keep,omitempty"`
}

// purgeAnswer is its answer.
type purgeAnswer struct {
	Error  *jetstream.APIError `json:"error,omitempty"`
	Purged uint64              `json:"purged"`
}

// purgeSessions purges the sessions' bucket's messages that req names and returns how many
// went: one request, where nats.go's Stream.Purge first reads the stream's info and does not
// say how many.
func (c *Client) purgeSessions(ctx context.Context, req purgeRequest) (int, error) {
	body, _ := json.Marshal(req)
	m, err := c.nc.RequestWithContext(ctx, jsAPI+"STREAM.PURGE."+kvStream(SessionBucket), body)
	if err != nil {
		return 0, fmt.Errorf("purging %s: %w", req.Filter, err)
	}
	var a purgeAnswer
	if err := json.Unmarshal(m.Data, &a); err != nil {
		return 0, fmt.Errorf("purging %s: answer %q: %w", req.Filter, m.Data, err)
	}
	if a.Error != nil {
		return 0, fmt.Errorf("purging %s: %w", req.Filter, a.Error)
	}
	return int(a.Purged), nil
}
