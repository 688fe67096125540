package mcp

import (
	"time"

	"github.com/corral-farm/corral/broker"
)

// LeaseInfo is a lease as the lease tools show it.
type LeaseInfo struct {
	Handle     string    `json:"handle,omitempty" jsonschema:"Opaque lease handle: pass it as lease on every call to the device; only its holder sees it"`
	Serial     string    `json:"serial" jsonschema:"Serial of the leased device"`
	Node       string    `json:"node,omitempty" jsonschema:"Edge node that owns the device"`
	Holder     string    `json:"holder" jsonschema:"Who holds the lease"`
	Epoch      uint64    `json:"epoch" jsonschema:"Lease epoch of the device; grows with every grant and fences stale holders"`
	AcquiredAt time.Time `json:"acquired_at,omitzero" jsonschema:"When the lease was granted"`
	ExpiresAt  time.Time `json:"expires_at" jsonschema:"When the lease ends unless a call of its holder renews it (idle TTL)"`
	MaxUntil   time.Time `json:"max_until" jsonschema:"Hard end of the lease; renewals never pass it"`
	QueueLen   int       `json:"queue_len" jsonschema:"Callers waiting for the device"`
}

func leaseInfo(l broker.Lease) LeaseInfo {
	return LeaseInfo{Handle: l.Handle, Serial: l.Serial, Node: l.Node, Holder: l.Holder.String(), Epoch: l.Epoch,
		AcquiredAt: l.AcquiredAt, ExpiresAt: l.ExpiresAt, MaxUntil: l.MaxUntil, QueueLen: l.QueueLen}
}

// leaseRefusal explains a lease answer that is not OK, as failureText explains a task's.
func leaseRefusal(tool, serial string, ans broker.LeaseAnswer) string {
	return failureText(broker.TaskResult{Tool: tool, Serial: serial, Outcome: broker.OutcomeRefused,
		Code: ans.Code, Error: ans.Error, Lease: ans.Lease, QueuePos: ans.QueuePos})
}
