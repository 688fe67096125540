package mcp

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// A request its client cancels (notifications/cancelled) gets no answer through the bridge,
// as the spec asks of a cancelled request's receiver: the gateway stops the call and still
// answers it ("interrupted by its caller"); the bridge drops that answer. Other requests are
// answered.
func TestBridgeDropsTheAnswerToACancelledRequest(t *testing.T) {
	farm := newFakeFarm(t)
	started, ended := make(chan struct{}, 1), make(chan struct{}, 1)
	farm.RunFn = func(ctx context.Context, req broker.TaskRequest, _ func(broker.Progress)) (broker.TaskResult, error) {
		started <- struct{}{}
		<-ctx.Done() // a long call, until its caller cancels it
		ended <- struct{}{}
		return broker.TaskResult{}, ctx.Err()
	}
	h := startHTTPGateway(t, farm, Options{})
	inR, inW := io.Pipe()
	t.Cleanup(func() { inW.Close() })
	var out lockedBuffer
	done := make(chan error, 1)
	go func() { done <- (&Bridge{URL: h.srv.URL + "/mcp"}).Run(t.Context(), inR, &out) }()
	send := func(line string) {
		t.Helper()
		_, err := io.WriteString(inW, line+"\n")
		require.NoError(t, err)
	}
	wait := func(ch <-chan struct{}, what string) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(30 * time.Second):
			t.Fatal(what)
		}
	}

	send(initializeBody)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"home","arguments":{"serial":"emulator-5554"}}}`)
	wait(started, "the call did not reach the farm")
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"the user stopped it"}}`)
	wait(ended, "the cancellation did not reach the call")
	send(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	inW.Close() // Run returns once every request relayed is done
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the bridge did not end with its stdin")
	}
	ids := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		ids[string(m.ID)] = true
		assert.NotEqual(t, "7", string(m.ID), "the cancelled request was answered: %s", line)
	}
	assert.True(t, ids["1"] && ids["8"], "the other requests were not answered: %s", out.String())
}

// Only a request in flight is marked cancelled: a cancellation of one already answered (or
// never sent) leaves a later request with that id answered.
func TestBridgeCallsMarkOnlyRequestsInFlight(t *testing.T) {
	var c calls
	answer := []byte(`{"jsonrpc":"2.0","id":7,"result":{}}`)
	c.track([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`))
	end := c.track([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call"}`))
	assert.False(t, c.dropped(answer), "a cancellation before the request marked it")
	c.track([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`))
	assert.True(t, c.dropped(answer))
	assert.False(t, c.dropped([]byte(`{"jsonrpc":"2.0","id":"7","result":{}}`)), "another id (a string) dropped")
	end()
	assert.False(t, c.dropped(answer), "still marked once its request ended")
}
