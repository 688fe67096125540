package service

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/vision"
)

// A worker says it holds a call (vision.CallHeader) from its arrival until a while after its
// answer, and no other call; a client asks so before it sends a slow call again (vision/hung.go).
func TestWorkerSaysWhichCallsItHolds(t *testing.T) {
	conn := natsServer(t)
	g := newGate()
	s, _ := startWorker(t, conn(), Options{Engine: g, Parallel: 1})
	nc := conn()
	holds := func(call string) bool {
		t.Helper()
		data, err := json.Marshal(vision.HoldsRequest{V: vision.WireVersion, Call: call})
		require.NoError(t, err)
		msg, err := nc.RequestWithContext(t.Context(), vision.DirectSubject(s.id, vision.EndpointHolds), data)
		require.NoError(t, err)
		var res vision.HoldsResult
		require.NoError(t, json.Unmarshal(msg.Data, &res))
		return res.Holds
	}
	req := nats.NewMsg(vision.Prefix + "." + vision.EndpointDiff)
	req.Header.Set(vision.CallHeader, "call-1")
	req.Data = []byte(`{"v":1}`)
	answered := make(chan error, 1)
	go func() {
		_, err := nc.RequestMsgWithContext(t.Context(), req)
		answered <- err
	}()
	select {
	case <-g.calls: // at work on it
	case <-time.After(20 * time.Second):
		t.Fatal("the worker never took the call")
	}
	assert.True(t, holds("call-1"), "the call it works on")
	assert.False(t, holds("call-2"), "a call it never got")
	assert.False(t, holds(""), "no call named")
	close(g.release)
	require.NoError(t, <-answered)
	assert.True(t, holds("call-1"), "a call just answered: its answer may be on its way")
}
