package tools

import (
	"context"
	"encoding/json"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/agent"
)

// wrongCalls is an agent's device that tells the agent which calls the tools refused for their
// arguments (an unknown field, a value out of range): the model called them wrongly, and the
// agent counts them so, not as actions on an unchanged screen (a loop).
type wrongCalls struct{ agentDevice }

// Call is agentDevice's, its refusals of arguments marked agent.ErrBadArguments.
func (d wrongCalls) Call(ctx context.Context, name string, args json.RawMessage) (string, error) {
	res, err := d.agentDevice.Call(ctx, name, args)
	if err != nil && ErrorCode(err) == broker.CodeBadInput {
		return "", badArguments{err}
	}
	return res, err
}

// badArguments is a tool's refusal of its arguments: the tool's own words, and
// agent.ErrBadArguments.
type badArguments struct{ error }

func (e badArguments) Unwrap() error        { return e.error }
func (e badArguments) Is(target error) bool { return target == agent.ErrBadArguments }
