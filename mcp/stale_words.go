package mcp

import (
	"time"

	"github.com/corral-farm/corral/broker"
)

// A node refuses a task whose lease is not the device's (stale_lease) in words for a caller
// that passed that handle ("the lease you passed for d1 expired at …"), and says the same as
// fields (broker.LeaseEnded). A caller that knows the lease by another name (a lease group's
// member, its select_device selection) is told from the fields, never by rewriting the node's
// words: those may change. An older node sends no fields: its words are given whole.

// endedWords says what became of the lease a node refused res under, named as the caller knows
// it (whose: "its lease of it"), and who has the device now:
//
//	its lease of it expired at 2026-03-14T15:09:26Z (idle for the lease's TTL); d1 is free now
//
// ok is false when the node sent no fields.
func endedWords(res broker.TaskResult, whose string) (words string, ok bool) {
	e := res.LeaseEnded
	if e == nil {
		return "", false
	}
	at := ""
	if !e.At.IsZero() {
		at = " at " + e.At.UTC().Format(time.RFC3339)
	}
	var what string
	switch e.What {
	case broker.LeaseUnknown:
		what = "is unknown to node " + res.Node + " (never granted for " + res.Serial + ", long ended, or from before the node restarted)"
	case broker.LeaseExpired:
		what = "expired" + at
	case broker.LeaseReleased:
		what = "was released by its holder" + at // its reason says no more
	case "":
		what = "ended" + at
	default: // revoked, or what a newer node says
		what = "was " + e.What + at
	}
	if e.Reason != "" && e.What != broker.LeaseReleased && e.What != broker.LeaseUnknown {
		what += " (" + e.Reason + ")"
	}
	if e.Now != "" {
		what += "; " + e.Now
	}
	return whose + " " + what, true
}
