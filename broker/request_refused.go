package broker

import (
	"context"
	"errors"
	"fmt"
)

// refusedRequest is the refusal that ended a request to node's endpoint when NATS refused to
// let this user publish the request itself (a role that may not: an operator asking for a
// lease), so that it never left: ctx ended at it (a connection with Refusals), or err says so
// (one without, whose request waited out its deadline: explainRefusal). Nil for any other end,
// a refusal of another subject among them: that request may have reached its node.
func refusedRequest(ctx context.Context, err error, node, endpoint string) *RefusedError {
	if err == nil {
		return nil
	}
	subject := fmt.Sprintf(NodeGroupT, node) + "." + endpoint
	var r *RefusedError
	for _, e := range []error{context.Cause(ctx), err} {
		if errors.As(e, &r) && r.Op == "publish to" && r.Subject == subject {
			return r
		}
	}
	return nil
}
