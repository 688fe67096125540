package service

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/vision"
)

// Requests that arrive while the worker stops (micro hands over those it already holds after
// the unsubscription) are admitted before Stop waits for the running ones, or refused as
// stopping: none is admitted behind Stop's back (the race detector saw that, a WaitGroup
// added to while waited on, when a test's clean-up stopped a worker mid-request).
func TestStopWhileRequestsArrive(t *testing.T) {
	conn := natsServer(t)
	sender := conn()
	for round := range 20 {
		g := newGate()
		g.calls = make(chan string, 1000) // more than are sent: none waits to be counted
		close(g.release)
		nc := conn()
		s, err := Start(nc, Options{Engine: g, Parallel: 2})
		require.NoError(t, err)
		inbox := nats.NewInbox()
		sub, err := sender.SubscribeSync(inbox)
		require.NoError(t, err)
		for range 200 {
			require.NoError(t, sender.PublishRequest(vision.Prefix+"."+vision.EndpointDiff, inbox, []byte(`{"v":1}`)))
		}
		require.NoError(t, sender.Flush())
		_, err = sub.NextMsg(10 * time.Second) // the worker is at work
		require.NoError(t, err, "round %d: no answer", round)
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		require.NoError(t, s.Stop(ctx), "round %d", round)
		cancel()
		require.NoError(t, sub.Unsubscribe())
		nc.Close()
	}
}
