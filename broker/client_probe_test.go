package broker

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every task a client sends names its connection's probe (one token, one subscription, for all
// its tasks), where its nodes ask whether it is still there: someone gets their request while
// the connection lives, no one once it is closed. A probe is not taken for an answer.
func TestClientTasksNameAProbeThatLivesWithItsConnection(t *testing.T) {
	s := openStores(t)
	n1 := startFakeNode(t, s, "n1")
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateOnline})
	conn, err := nats.Connect(s.JS.Conn().ConnectedUrl())
	require.NoError(t, err)
	defer conn.Close()
	c, err := NewClient(t.Context(), conn, s, ClientOptions{LostAfter: time.Hour})
	require.NoError(t, err)
	require.NoError(t, c.WaitReady(call(t)))

	var probes []string
	for range 2 {
		id := NewTaskID()
		done := make(chan error, 1)
		go func() {
			res, err := c.Run(call(t), TaskRequest{V: WireVersion, ID: id, Serial: "d1", Tool: holdTool, WaitMS: 5000}, nil)
			if err == nil && res.Outcome != OutcomeSucceeded {
				err = fmt.Errorf("outcome %s", res.Outcome)
			}
			done <- err
		}()
		held := <-n1.held
		var req TaskRequest
		require.NoError(t, DecodeTaskRequest(held.Data, &req))
		require.True(t, strings.HasPrefix(req.Probe, probePrefix) && validToken(req.Probe), "probe %q", req.Probe)
		probes = append(probes, req.Probe)
		assert.True(t, listened(t, n1.nc, fmt.Sprintf(ProgressT, "n1", req.Probe)), "no one listens on the probe while the call waits")
		b, _ := json.Marshal(TaskResult{V: WireVersion, ID: id, Serial: "d1", Node: "n1", Tool: holdTool, Outcome: OutcomeSucceeded})
		require.NoError(t, held.Respond(b))
		require.NoError(t, <-done, "the call's answer")
	}
	assert.Equal(t, probes[0], probes[1], "one probe per connection")
	subject := fmt.Sprintf(ProgressT, "n1", probes[0])
	assert.True(t, listened(t, n1.nc, subject), "the probe ended with a call")

	conn.Close()
	require.Eventually(t, func() bool { return !listened(t, n1.nc, subject) }, waitLong, 10*time.Millisecond,
		"someone listens on the probe of a closed connection")
}

// listened says whether a request to subject reaches a subscriber, as a node asks (nodes'
// noListener): no responders comes back before the answer to the flush's PING, or not at all.
func listened(t *testing.T, nc *nats.Conn, subject string) bool {
	t.Helper()
	statuses := make(chan *nats.Msg, 1)
	sub, err := nc.ChanSubscribe(nc.NewInbox(), statuses)
	require.NoError(t, err)
	defer func() { _ = sub.Unsubscribe() }()
	require.NoError(t, nc.PublishRequest(subject, sub.Subject, nil))
	require.NoError(t, nc.Flush())
	select {
	case m := <-statuses:
		return m.Header.Get("Status") != "503"
	default:
		return true
	}
}
