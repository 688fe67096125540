package broker

import (
	"context"
	"time"
)

// stoppedAnswerGrace is how long a request to a node that said it stopped still waits for its
// answer. A stopping node answers its calls before it says so (nodes.Node.Stop), but the answer
// and the down event reach this process on different subscriptions, either of which may be
// handled first: ended at once, the call would say "node stopped during the call" in place of
// the node's own answer ("is shutting down", with what it did).
const stoppedAnswerGrace = 500 * time.Millisecond

// endRequest ends a request to node with ErrNodeLost: at once for a lost node, after
// stoppedAnswerGrace for one that said it stopped.
func (c *Client) endRequest(node string, cancel context.CancelCauseFunc) {
	if _, stopped := c.live.stoppedAt(node); stopped {
		time.AfterFunc(stoppedAnswerGrace, func() { cancel(ErrNodeLost) }) // a no-op once the answer came
		return
	}
	cancel(ErrNodeLost)
}
