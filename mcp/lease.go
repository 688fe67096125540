package mcp

import (
	"time"

	"github.com/corral-farm/corral/broker"
)

// LeaseInfo is a lease as the lease tools show it.
type LeaseInfo struct {
	Handle     string    `json:"handle,omitempty" jsonschema:"Pass as lease on every call (holder only)"`
	Serial     string    `json:"serial"`
	Node       string    `json:"node,omitempty"`
	Holder     string    `json:"holder"`
	Epoch      uint64    `json:"epoch" jsonschema:"Grows with every grant; fences stale holders"`
	AcquiredAt time.Time `json:"acquired_at,omitzero"`
	ExpiresAt  time.Time `json:"expires_at" jsonschema:"Idle expiry; each call renews"`
	MaxUntil   time.Time `json:"max_until" jsonschema:"Hard end"`
	QueueLen   int       `json:"queue_len" jsonschema:"Callers waiting"`
	Group      string    `json:"group,omitempty"`
	Yours      bool      `json:"yours,omitempty"`
}

func leaseInfo(l broker.Lease) LeaseInfo {
	return LeaseInfo{Handle: l.Handle, Serial: l.Serial, Node: l.Node, Holder: l.Holder.String(), Epoch: l.Epoch,
		AcquiredAt: l.AcquiredAt, ExpiresAt: l.ExpiresAt, MaxUntil: l.MaxUntil, QueueLen: l.QueueLen}
}

// leaseRefusal explains a lease answer that is not OK, as failureText explains a task's: a
// device the caller holds itself is "You hold it", not busy with advice to queue.
func leaseRefusal(tool, serial string, ans broker.LeaseAnswer, caller broker.Holder) string {
	return failureText(broker.TaskResult{Tool: tool, Serial: serial, Outcome: broker.OutcomeRefused,
		Code: ans.Code, Error: ans.Error, Lease: ans.Lease, QueuePos: ans.QueuePos}, caller)
}
