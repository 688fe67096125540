package main

import (
	"context"

	"github.com/corral-farm/corral/broker"
)

// abortingAs is the in-process front door's farm of corral abort: its aborts are recorded as
// by the operator (--by, or operator USER@HOST, as release --force and drain), not as the CLI's
// anonymous MCP client. Through a gateway the record names the token's principal instead.
type abortingAs struct {
	*cliFarm
	by string
}

func (f abortingAs) Abort(ctx context.Context, req broker.AbortRequest) (broker.AbortAnswer, error) {
	req.By = f.by
	return f.cliFarm.Abort(ctx, req)
}
