package nodes

import (
	"encoding/json"
	"time"

	"github.com/corral-farm/corral/actors"
)

// The scheduler asks how long a task takes (a sleep's length), for the busy answers to others.
var _ actors.Lasting = (*boundDevice)(nil)

// Lasts returns how long a task of tool with args takes, as its op tells; 0: unknown.
func (b *boundDevice) Lasts(tool string, args json.RawMessage) time.Duration {
	if op, ok := b.ops[tool]; ok && op.Lasts != nil {
		return op.Lasts(args)
	}
	return 0
}
