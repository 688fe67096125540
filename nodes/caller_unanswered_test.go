package nodes_test

import (
	"encoding/json"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A gateway that does not answer its node's probes for a while (a busy or stalled gateway:
// its answers held longer than actors.DefaultCallerGoneAfter) keeps its running call: an
// unanswered probe says nothing of the caller; only no responders or the gateway's "gone"
// does. Once the gateway is really gone (its connection closed), the task is aborted
// caller_gone within its bound.
func TestRunningTaskOfAGatewayThatDoesNotAnswerRunsOn(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true, Auth: true})
	serial := f.Devices()[0].Serial
	gw := f.Gateway().Client
	slow := &answersHeld{Server: f.NATS}
	c, nc := gatewayClientVia(t, f, "unanswering", slow)

	id := broker.NewTaskID()
	go func() {
		_, _ = c.Run(t.Context(), broker.TaskRequest{V: broker.WireVersion, ID: id, Serial: serial, Tool: "sleep",
			Args: json.RawMessage(`{"seconds":120}`), Holder: broker.Holder{Principal: "agent", Client: "unanswering"}}, nil)
	}()
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, _ := gw.Device(serial)
		return d.State == broker.StateBusy && d.Task != nil && d.Task.ID == id
	}, "the sleep runs on %s", serial)

	slow.held.Store(true)
	from := time.Now()
	// Unanswered past the time a gone caller's task is aborted, at several checks, unless it
	// ends first.
	farmtest.Eventually(t, 60*time.Second, func() bool {
		_, err := gw.TaskRecord(t.Context(), id)
		return err == nil || time.Since(from) > actors.DefaultCallerGoneAfter+2*actors.DefaultCallerCheckEvery && slow.unanswered.Load() >= 4
	}, "the node's probes go unanswered")
	if rec, err := gw.TaskRecord(t.Context(), id); err == nil {
		t.Fatalf("the sleep ended while its gateway only did not answer (%d probes, for %s): %s %s",
			slow.unanswered.Load(), time.Since(from).Round(time.Millisecond), rec.Code, rec.Error)
	}
	d, _ := gw.Device(serial)
	require.True(t, d.Task != nil && d.Task.ID == id, "the sleep no longer runs though its gateway only did not answer (%s)", d.State)

	// Really gone now: no one listens for the call.
	slow.held.Store(false)
	nc.Close()
	gone := time.Now()
	var rec broker.TaskResult
	farmtest.Eventually(t, 30*time.Second, func() bool {
		var err error
		rec, err = gw.TaskRecord(t.Context(), id)
		return err == nil
	}, "the sleep's record")
	assert.Equal(t, broker.OutcomeAborted, rec.Outcome, "%s %s", rec.Code, rec.Error)
	assert.Equal(t, broker.CodeCallerGone, rec.Code)
	took := rec.Finished.Sub(gone)
	t.Logf("aborted %s after its gateway went", took.Round(time.Millisecond))
	assert.GreaterOrEqual(t, took, actors.DefaultCallerGoneAfter, "aborted before its caller was gone DefaultCallerGoneAfter")
	// A check finds it gone at most a check after it went, and the checks go on every
	// DefaultCallerCheckEvery until it has been gone DefaultCallerGoneAfter.
	assert.Less(t, took, actors.DefaultCallerGoneAfter+3*actors.DefaultCallerCheckEvery, "aborted late")
}

// answersHeld connects to a NATS server in this process and, while held, loses the answers
// the client publishes to nodes' probes (broker.CallerAnswerSubject), counting them: a gateway
// whose probe handler does not answer.
type answersHeld struct {
	*server.Server
	held       atomic.Bool
	unanswered atomic.Int32
}

func (a *answersHeld) InProcessConn() (net.Conn, error) {
	conn, err := a.Server.InProcessConn()
	if err != nil {
		return nil, err
	}
	// corral.v1.node.<node>.caller_<id>
	node, answer, _ := strings.Cut(broker.CallerAnswerSubject("NODE", "ID"), "NODE")
	return &pubFilter{Conn: conn, dropped: &a.unanswered, lost: func(subject string) bool {
		return a.held.Load() && strings.HasPrefix(subject, node) && strings.Contains(subject, strings.TrimSuffix(answer, "ID"))
	}}, nil
}
