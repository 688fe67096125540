package mcp

import (
	"testing"
	"time"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// A node answers a task when it ends: after at most wait_seconds in the device's queue and the
// tool's longest deadline, plus the grace a cancelled driver gets. nats-server lets the node
// answer only within broker.ReplyWindow of the request: a tool whose deadline outgrows it would
// have its callers never hear (as every task over 2 minutes did under nats-server's default).
func TestEveryTaskIsAnsweredWithinTheReplyWindow(t *testing.T) {
	wait := time.Duration(maxWaitSeconds) * time.Second
	for _, tool := range tools.All() {
		longest := max(tool.Timeout, tool.MaxTimeout)
		if need := wait + longest + actors.DefaultGrace + time.Minute; need > broker.ReplyWindow {
			t.Errorf("%s may answer %v after its call (wait_seconds %v, deadline up to %v): beyond broker.ReplyWindow (%v)",
				tool.Name, need, wait, longest, broker.ReplyWindow)
		}
	}
}
