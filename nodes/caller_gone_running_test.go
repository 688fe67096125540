package nodes_test

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A gateway killed while its call runs (QA's L4: kill -9 during a sleep of 120 s) does not
// leave the device busy until the task's deadline: its node finds no one listening for the
// call for actors.DefaultCallerGoneAfter and aborts the task, whose record says why, and the
// device is free again. With NATS auth, as `corral up` runs it.
func TestRunningTaskOfAKilledGatewayIsAborted(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true, Auth: true})
	serial := f.Devices()[0].Serial
	gw := f.Gateway().Client
	killed, killedNC := gatewayClient(t, f, "killed")
	id := broker.NewTaskID()
	go func() {
		_, _ = killed.Run(t.Context(), broker.TaskRequest{V: broker.WireVersion, ID: id, Serial: serial, Tool: "sleep",
			Args: json.RawMessage(`{"seconds":120}`), Holder: broker.Holder{Principal: "agent", Client: "killed"}}, nil)
	}()
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, _ := gw.Device(serial)
		return d.State == broker.StateBusy && d.Task != nil && d.Task.ID == id
	}, "the sleep runs on %s", serial)

	killedNC.Close()
	gone := time.Now()
	var rec broker.TaskResult
	farmtest.Eventually(t, 30*time.Second, func() bool {
		var err error
		rec, err = gw.TaskRecord(t.Context(), id)
		return err == nil
	}, "the sleep's record")
	assert.Equal(t, broker.OutcomeAborted, rec.Outcome, "%s %s", rec.Code, rec.Error)
	assert.Equal(t, broker.CodeCallerGone, rec.Code)
	assert.Contains(t, rec.Error, "its caller went away while sleep ran")
	assert.False(t, rec.Started.IsZero(), "the record shows no start")
	assert.GreaterOrEqual(t, time.Since(gone), actors.DefaultCallerGoneAfter, "aborted before its caller was gone DefaultCallerGoneAfter")
	farmtest.Eventually(t, 10*time.Second, func() bool { d, _ := gw.Device(serial); return d.State == broker.StateOnline }, "%s is free", serial)
}

// A gateway whose NATS connection drops for a moment (1.5 s, a reconnection) keeps its running
// call: the node finds no one listening at a check or so, but not for
// actors.DefaultCallerGoneAfter, and the call runs on until it is aborted.
func TestRunningTaskOfAReconnectingGatewayRunsOn(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true, Auth: true})
	serial := f.Devices()[0].Serial
	gw := f.Gateway().Client
	cut := &cuttable{Server: f.NATS}
	opts := f.Connect(broker.UserName(broker.RoleGateway, ""), "reconnecting")
	opts.InProcess = cut
	nc, err := broker.Connect(opts, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	stores, err := broker.EnsureStores(t.Context(), nc, broker.StoreOptions{})
	require.NoError(t, err)
	c, err := broker.NewClient(t.Context(), nc, stores, broker.ClientOptions{Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	require.NoError(t, c.WaitReady(t.Context()))

	id := broker.NewTaskID()
	done := make(chan broker.TaskResult, 1)
	go func() {
		res, _ := c.Run(t.Context(), broker.TaskRequest{V: broker.WireVersion, ID: id, Serial: serial, Tool: "sleep",
			Args: json.RawMessage(`{"seconds":120}`), Holder: broker.Holder{Principal: "agent", Client: "reconnecting"}}, nil)
		done <- res
	}()
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, _ := gw.Device(serial)
		return d.State == broker.StateBusy && d.Task != nil && d.Task.ID == id
	}, "the sleep runs on %s", serial)

	cut.cutFor(1500 * time.Millisecond)
	farmtest.Eventually(t, 10*time.Second, func() bool { return !nc.IsConnected() }, "the gateway's connection drops")
	farmtest.Eventually(t, 10*time.Second, nc.IsConnected, "the gateway's connection is back")
	back := time.Now()
	// Past the time a gone caller's task would have been aborted, counted from the cut.
	farmtest.Eventually(t, 10*time.Second, func() bool { return time.Since(back) > actors.DefaultCallerGoneAfter }, "time passes")
	d, _ := gw.Device(serial)
	require.True(t, d.Task != nil && d.Task.ID == id, "the sleep no longer runs after its gateway reconnected (%s)", d.State)

	ans, err := gw.Abort(t.Context(), broker.AbortRequest{V: broker.WireVersion, Serial: serial, TaskID: id, By: "test"})
	require.NoError(t, err)
	require.Equal(t, []string{id}, ans.Aborted, "%s", ans.Error)
	select {
	case res := <-done:
		assert.Equal(t, broker.OutcomeAborted, res.Outcome, "%s %s", res.Code, res.Error)
		assert.NotEqual(t, broker.CodeCallerGone, res.Code, "%s", res.Error)
	case <-time.After(30 * time.Second):
		t.Fatal("the reconnected gateway's call got no answer")
	}
}

// cuttable connects to a NATS server in this process, and can cut the connection and refuse
// new ones for a while, as a network blip does.
type cuttable struct {
	*server.Server
	mu      sync.Mutex
	conn    net.Conn
	refused time.Time // until when new connections are refused
}

func (c *cuttable) InProcessConn() (net.Conn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Now().Before(c.refused) {
		return nil, errors.New("cut off")
	}
	conn, err := c.Server.InProcessConn()
	c.conn = conn
	return conn, err
}

// cutFor closes the connection and refuses new ones for d.
func (c *cuttable) cutFor(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refused = time.Now().Add(d)
	_ = c.conn.Close()
}
