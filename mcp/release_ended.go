package mcp

import (
	"context"

	"github.com/corral-farm/corral/broker"
)

// release_device {} gives back the caller's selection's lease. When that lease has ended, the
// node's refusal speaks of "the lease you passed", which the caller did not: it is worded for
// the selection from the node's fields (endedWords), as a tool call's refusal is, and the
// selection lets go of the lease as it does then (forgetEndedSelection).

// endedSelectionRelease words a node's stale_lease refusal (ans) of release_device of handle,
// the lease the caller's selection of dev took; "" when handle is not that lease.
func (g *Gateway) endedSelectionRelease(ctx context.Context, dev broker.DeviceEntry, handle string, ans broker.LeaseAnswer) string {
	res := broker.TaskResult{Tool: "release_device", Serial: dev.Serial, Node: dev.Node, Outcome: broker.OutcomeRefused,
		Code: ans.Code, Error: ans.Error, LeaseEnded: ans.LeaseEnded}
	if g.forgetEndedSelection(ctx, dev.Serial, handle, res) == "" {
		return ""
	}
	frame := "release_device on " + dev.Serial + " refused (" + ans.Code + "): "
	msg := frame + "the lease select_device took for " + dev.Serial + " was refused: " + ans.Error // an older node's words, whole
	if what, ok := endedWords(res, "the lease select_device took for "+dev.Serial); ok {
		msg = frame + "nothing to release: " + what
	}
	if sessionID(ctx) != "" {
		return msg + ". This session's selection keeps " + dev.Serial + " without a lease: call select_device again to hold it"
	}
	return msg + ". The selection is forgotten: call select_device again to hold " + dev.Serial
}
