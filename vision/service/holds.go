package service

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"

	"github.com/corral-farm/corral/vision"
)

// A client that waited a while on a call sent to the queue group asks the workers that answer
// its ping which of them holds the call (vision.EndpointHolds): one that does is only slow and
// is waited on; when none does, the one that has it is hung, and the call may go to another.

// heldAfter is how long a worker still says it holds a call it answered: its answer may be on
// its way to the client when the client asks.
const heldAfter = 10 * time.Second

// heldCalls are the calls (vision.CallHeader) a worker holds, with when it answered each (zero:
// not yet).
type heldCalls struct {
	mu    sync.Mutex
	calls map[string]time.Time
}

// take records that call arrived; its done ends it.
func (h *heldCalls) take(call string) (done func()) {
	if call == "" {
		return func() {}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.calls == nil {
		h.calls = map[string]time.Time{}
	}
	for id, at := range h.calls {
		if !at.IsZero() && time.Since(at) > heldAfter {
			delete(h.calls, id)
		}
	}
	h.calls[call] = time.Time{}
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.calls[call] = time.Now()
	}
}

func (h *heldCalls) holds(call string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	at, ok := h.calls[call]
	return ok && (at.IsZero() || time.Since(at) <= heldAfter)
}

// handleHolds answers a HoldsRequest at once, off no slot.
func (s *Service) handleHolds(r micro.Request) {
	var req vision.HoldsRequest
	res := vision.HoldsResult{V: vision.WireVersion}
	if json.Unmarshal(r.Data(), &req) == nil && req.Call != "" {
		res.Holds = s.held.holds(req.Call)
	}
	data, _ := json.Marshal(res)
	if err := s.answer(r, &nats.Msg{Data: data}); err != nil {
		s.log.Warn("vision: a holds answer could not be sent", "err", err)
	}
}
