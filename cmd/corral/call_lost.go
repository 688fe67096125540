package main

import (
	"context"
	"errors"
	neturl "net/url"

	"github.com/corral-farm/corral/mcp/steps"
)

// lostCall words a call through --gateway that got no answer as corral run's steps do
// (steps.CallFailure): the URL's error once, not mcp-go's "transport error: failed to send
// request: failed to send request: …", and, when the request was sent, that the call may have
// run and how to find its task. nil for any other error, or a call the command itself ended
// (interrupted and gaveUp say those).
func lostCall(ctx context.Context, tool string, args map[string]any, err error, sent bool) error {
	var ue *neturl.Error
	if err == nil || ctx.Err() != nil || !errors.As(err, &ue) {
		return nil
	}
	serial, _ := args["serial"].(string)
	return errors.New(steps.CallFailure(tool, serial, err, sent))
}
