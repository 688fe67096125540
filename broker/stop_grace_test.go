package broker

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A stopping node answers its calls before its down event, but the two reach a gateway on
// different subscriptions: an answer handled after the down event is still the call's answer,
// not "node stopped during the call" (TestNodeStopsBeforeItsPlatformsLetGo failed so under
// load). The node here answers only once the client has taken its down event.
func TestStoppedNodesAnswerAfterItsDownEventIsTheCallsAnswer(t *testing.T) {
	s := openStores(t)
	n1 := startFakeNode(t, s, "n1")
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateOnline})
	c := startClient(t, s, ClientOptions{LostAfter: testLostAfter})
	require.Eventually(t, func() bool { return len(c.Nodes()) == 1 }, waitLong, 5*time.Millisecond, "n1 heard")

	id := NewTaskID()
	type result struct {
		res TaskResult
		err error
	}
	inflight := make(chan result, 1)
	go func() {
		res, err := c.Run(call(t), TaskRequest{V: WireVersion, ID: id, Serial: "d1", Tool: holdTool}, nil)
		inflight <- result{res, err}
	}()
	var held *nats.Msg
	select {
	case held = <-n1.held:
	case <-time.After(waitLong):
		t.Fatal("the held task did not reach n1")
	}
	n1.stopBeats()
	require.NoError(t, n1.nc.Publish(fmt.Sprintf(EventNodeT, "n1", "down"), []byte(`{}`)))
	require.Eventually(t, func() bool { _, ok := c.live.stoppedAt("n1"); return ok }, waitLong, time.Millisecond, "the down event taken")

	b, err := json.Marshal(TaskResult{V: WireVersion, ID: id, Serial: "d1", Node: "n1", Tool: holdTool, Outcome: OutcomeFailed,
		Code: CodeInterrupted, Error: "node n1 is shutting down and stopped hold on d1"})
	require.NoError(t, err)
	require.NoError(t, held.Respond(b))

	var got result
	select {
	case got = <-inflight:
	case <-time.After(waitLong):
		t.Fatal("the call did not end")
	}
	require.NoError(t, got.err)
	assert.Contains(t, got.res.Error, "is shutting down")
}
