package broker

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
)

// Every progress report a node sent before its answer reaches the caller before Run returns:
// the MCP gateway answers the call's POST when Run returns, and a report handed over after
// that went on the session's GET stream (TestCallNotificationsComeOnTheirPOSTStream flaked).
// The node publishes its reports, then answers, on one connection, as package nodes does;
// many rounds, since the subscription's goroutine only sometimes lags behind the answer.
func TestClientRunHandsOverProgressBeforeResult(t *testing.T) {
	const reports, rounds = 5, 200
	s := openStores(t)
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateOnline})
	node, err := nats.Connect(s.JS.Conn().ConnectedUrl())
	require.NoError(t, err)
	t.Cleanup(node.Close)
	_, err = node.Subscribe(fmt.Sprintf(NodeGroupT, "n1")+"."+EndpointTask, func(m *nats.Msg) {
		var req TaskRequest
		if DecodeTaskRequest(m.Data, &req) != nil {
			return
		}
		subject := fmt.Sprintf(ProgressT, "n1", req.ID)
		for i := 1; i <= reports; i++ {
			b, _ := json.Marshal(Progress{TaskID: req.ID, Progress: float64(i), Total: reports})
			_ = node.Publish(subject, b)
		}
		res := TaskResult{V: WireVersion, ID: req.ID, Serial: req.Serial, Node: "n1", Tool: req.Tool, Outcome: OutcomeSucceeded}
		b, _ := res.AppendJSON(nil)
		_ = m.Respond(b)
	})
	require.NoError(t, err)
	require.NoError(t, node.Flush())
	c := startClient(t, s, ClientOptions{LostAfter: time.Hour, ProgressHandOver: time.Minute}) // a loaded machine's scheduler is no failure

	for round := range rounds {
		var mu sync.Mutex
		var got []float64
		res, err := c.Run(call(t), TaskRequest{V: WireVersion, ID: NewTaskID(), Serial: "d1", Tool: "install", Progress: true}, func(p Progress) {
			runtime.Gosched() // a caller's callback takes a moment (an MCP call queues a notification)
			mu.Lock()
			defer mu.Unlock()
			got = append(got, p.Progress)
		})
		require.NoError(t, err)
		require.Equal(t, OutcomeSucceeded, res.Outcome)
		mu.Lock()
		n := len(got)
		ordered := n == reports && got[0] == 1 && got[reports-1] == reports
		mu.Unlock()
		require.True(t, ordered, "round %d: %d of %d progress reports handed over before Run returned", round, n, reports)
	}
}
