package nodes_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// Callers that leave together leave nothing to run (QA's D1: several `corral call`s cut by one
// Ctrl-C). A gateway's caller runs a sleep and three of its callers wait behind it with taps;
// all leave at once, and the sleep's abort reaches the node while the taps' are still on their
// way (here they never come: the gateway's connection loses them). The node frees the device
// and turns to each tap in turn: its gateway, alive, says the tap's call no longer waits, so
// none runs: each is refused caller_gone, and the phone is never touched.
func TestCallersThatLeaveTogetherLeaveNothingToRun(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true, Auth: true})
	serial := f.Devices()[0].Serial
	phone := f.Phone(serial)
	gw := f.Gateway().Client
	lossy := &abortsLost{Server: f.NATS}
	c, _ := gatewayClientVia(t, f, "aborts-lost", lossy)

	callers, leave := context.WithCancel(t.Context())
	var calls sync.WaitGroup
	run := func(tool, args string, waitMS int64) string {
		id := broker.NewTaskID()
		calls.Go(func() {
			_, _ = c.Run(callers, broker.TaskRequest{V: broker.WireVersion, ID: id, Serial: serial, Tool: tool, Args: json.RawMessage(args),
				Holder: broker.Holder{Principal: "agent", Client: id}, WaitMS: waitMS}, nil)
		})
		return id
	}
	sleep := run("sleep", `{"seconds":60}`, 0)
	farmtest.Eventually(t, 10*time.Second, func() bool { d, _ := gw.Device(serial); return d.State == broker.StateBusy }, "the sleep runs")
	var taps []string
	for range 3 {
		taps = append(taps, run("tap_xy", `{"x":0.5,"y":0.5}`, 100_000))
	}
	farmtest.Eventually(t, 10*time.Second, func() bool { d, _ := gw.Device(serial); return d.Queued == 3 }, "three taps wait")
	before := slices.Clone(phone.InputLog())

	leave()
	calls.Wait()
	require.EqualValues(t, 4, lossy.dropped.Load(), "the callers' four aborts were lost on the way")
	ans, err := gw.Abort(t.Context(), broker.AbortRequest{V: broker.WireVersion, Serial: serial, TaskID: sleep, By: "client cancelled"})
	require.NoError(t, err)
	require.Equal(t, []string{sleep}, ans.Aborted, "the sleep's abort: %s", ans.Error)

	for _, id := range taps {
		var rec broker.TaskResult
		farmtest.Eventually(t, 10*time.Second, func() bool { rec, err = gw.TaskRecord(t.Context(), id); return err == nil }, "the record of tap %s", id)
		assert.Equal(t, broker.OutcomeRefused, rec.Outcome, "tap %s: %s %s", id, rec.Code, rec.Error)
		assert.Equal(t, broker.CodeCallerGone, rec.Code, "tap %s", id)
		assert.True(t, rec.Started.IsZero(), "tap %s started at %s", id, rec.Started)
	}
	assert.Equal(t, before, phone.InputLog(), "taps whose callers had left reached the phone")
	farmtest.Eventually(t, 10*time.Second, func() bool { d, _ := gw.Device(serial); return d.State == broker.StateOnline && d.Queued == 0 },
		"%s is free, nothing waiting", serial)
}

// abortsLost connects to a NATS server in this process and loses what the client publishes to
// nodes' abort endpoints (PUB or HPUB of a subject ending .abort), as a connection might lose
// an abort still on its way.
type abortsLost struct {
	*server.Server
	dropped atomic.Int32
}

func (a *abortsLost) InProcessConn() (net.Conn, error) {
	conn, err := a.Server.InProcessConn()
	if err != nil {
		return nil, err
	}
	return &pubFilter{Conn: conn, dropped: &a.dropped, lost: func(subject string) bool {
		return strings.HasSuffix(subject, "."+broker.EndpointAbort)
	}}, nil
}

// pubFilter passes the client's protocol on, message by message, but for messages it
// publishes to a subject lost says is lost, which it counts in dropped.
type pubFilter struct {
	net.Conn
	dropped *atomic.Int32
	lost    func(subject string) bool
	mu      sync.Mutex
	pending []byte // the start of a message not written whole yet
}

func (c *pubFilter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending = append(c.pending, p...)
	var out []byte
	for {
		end := bytes.Index(c.pending, []byte("\r\n"))
		if end < 0 {
			break
		}
		fields := strings.Fields(string(c.pending[:end]))
		n, drop := end+2, false
		if len(fields) >= 3 && (fields[0] == "PUB" || fields[0] == "HPUB") {
			size, err := strconv.Atoi(fields[len(fields)-1])
			if err != nil || len(c.pending) < n+size+2 {
				break
			}
			n += size + 2
			drop = c.lost(fields[1])
		}
		if drop {
			c.dropped.Add(1)
		} else {
			out = append(out, c.pending[:n]...)
		}
		c.pending = slices.Clone(c.pending[n:])
	}
	if len(out) > 0 {
		if _, err := c.Conn.Write(out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}
