package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
)

// DrainNode sends a drain request to a node's drain endpoint and returns its answer. It asks the
// node directly, not through the registry: a node with no device can be drained too.
func DrainNode(ctx context.Context, nc *nats.Conn, node string, req DrainRequest) (DrainAnswer, error) {
	var ans DrainAnswer
	if !validToken(node) {
		return ans, fmt.Errorf("node id %q is not valid: use the NODE column of `corral devices` or `nats micro ls`", node)
	}
	if req.V == 0 {
		req.V = WireVersion
	}
	data, err := json.Marshal(req)
	if err != nil {
		return ans, fmt.Errorf("encode drain request: %w", err)
	}
	// One answer takes milliseconds: do not wait for the caller's whole deadline (a --wait of
	// minutes) when none comes.
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	subject := fmt.Sprintf(NodeGroupT, node) + "." + EndpointDrain
	msg, err := nc.RequestWithContext(ctx, subject, data)
	if errors.Is(err, nats.ErrNoResponders) {
		return ans, fmt.Errorf("node %s does not answer on %s: no such node, or it is stopped (`nats micro ls` lists the nodes)", node, subject)
	}
	if err != nil {
		return ans, fmt.Errorf("drain request to node %s: %w", node, explainRefusal(nc, err))
	}
	if code := msg.Header.Get("Nats-Service-Error-Code"); code != "" {
		return ans, fmt.Errorf("node %s refused the drain request (%s): %s", node, code, msg.Header.Get("Nats-Service-Error"))
	}
	if err := json.Unmarshal(msg.Data, &ans); err != nil || newerWire(ans.V) {
		if v := wireVersionOf(msg.Data); newerWire(v) {
			return DrainAnswer{}, errNewerWire(fmt.Sprintf("node %s's drain answer", node), v)
		}
		return ans, fmt.Errorf("node %s sent an unreadable drain answer: %w", node, err)
	}
	if ans.Error != "" {
		return ans, fmt.Errorf("node %s: %s", node, ans.Error)
	}
	return ans, nil
}
