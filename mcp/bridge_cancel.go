package mcp

import (
	"encoding/json"
	"sync"
)

// calls are the requests in flight through a bridge, and those of them its client cancelled
// (notifications/cancelled). The spec says a cancelled request should get no answer, but the
// gateway may still send one (its tool ends "interrupted by its caller"): the bridge, on the
// caller's side, drops it. Only requests in flight are noted, so an id used again later is
// answered.
type calls struct {
	mu        sync.Mutex
	inflight  map[string]int // by compacted id: how many requests carry it
	cancelled map[string]bool
}

// track notes msg, before it is relayed: a request goes in flight until end is called; a
// cancellation of a request in flight marks it cancelled. Batches are left alone.
func (c *calls) track(msg []byte) (end func()) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if len(msg) == 0 || msg[0] != '{' || json.Unmarshal(msg, &m) != nil || m.Method == "" {
		return func() {}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(m.ID) == 0 {
		if m.Method == "notifications/cancelled" && len(m.Params.RequestID) > 0 {
			if id := compactID(m.Params.RequestID); c.inflight[id] > 0 {
				if c.cancelled == nil {
					c.cancelled = map[string]bool{}
				}
				c.cancelled[id] = true
			}
		}
		return func() {}
	}
	id := compactID(m.ID)
	if c.inflight == nil {
		c.inflight = map[string]int{}
	}
	c.inflight[id]++
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.inflight[id]--; c.inflight[id] <= 0 {
			delete(c.inflight, id)
			delete(c.cancelled, id)
		}
	}
}

// dropped says whether msg answers a request its client cancelled: not to be relayed.
func (c *calls) dropped(msg []byte) bool {
	c.mu.Lock()
	none := len(c.cancelled) == 0
	c.mu.Unlock()
	if none { // the usual case: no answer is parsed twice
		return false
	}
	id, ok := answeredID(msg)
	if !ok {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cancelled[id]
}
