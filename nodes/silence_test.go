package nodes_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/internal/tcplink"
)

// QA's D2 and D3: a node stopped (kill -STOP) long enough for the farm to declare it lost, its
// callers answered "node lost", then let go. The requests they had sent waited in NATS and
// reached the node all at once: it ran the tasks (a caller that retries gets its action done
// twice) and granted the lease to no one, the device refused as busy until the lease's idle
// expiry. Here the node's connection to NATS is held both ways instead (nothing is closed, the
// bytes wait, as for a stopped process), then let go. The tasks do not run, an agent task
// (which outlives its caller otherwise) neither: nothing reaches the phones, each is refused,
// its record showing no start: caller_gone once its gateway says its call was answered, or
// node_lost if the node hears of its loss as it asks. The lease request is refused once its
// gateway says its caller was answered, and nothing is granted or held. Before the silence, a
// task runs with no question on the way.
func TestRequestsHeldWhileTheNodeWasSilentDoNotRunOnceItIsBack(t *testing.T) {
	serials := []string{"n1-a", "n1-b", "n1-c", "n1-d"} // two for taps, one for a lease, one for an agent task
	var link *stallLink
	rig := startSilenceRig(t, func(server string) string { link = startStallLink(t, server); return link.addr() }, serials...)
	ctx, gw, gwNC, said, phones, online, asked := rig.ctx, rig.gw, rig.gwNC, rig.said, rig.phones, rig.online, rig.callersAsked

	tap := func(id, serial string) broker.TaskRequest {
		return broker.TaskRequest{V: broker.WireVersion, ID: id, Serial: serial, Tool: "tap_xy", Args: json.RawMessage(`{"x":0.5,"y":0.5}`),
			Holder: broker.Holder{Principal: "agent", Client: "silence-test"}}
	}

	res, err := gw.Run(ctx, tap(broker.NewTaskID(), serials[0]), nil)
	require.NoError(t, err)
	require.Equal(t, broker.OutcomeSucceeded, res.Outcome, "%s %s", res.Code, res.Error)
	require.Zero(t, asked(), "a task with no silence before it asked its caller") // a probe goes before the task's answer
	before := map[string][]string{}
	for _, serial := range serials {
		before[serial] = slices.Clone(phones[serial].InputLog())
	}

	link.hold()
	type answer struct {
		res broker.TaskResult
		err error
	}
	ids, agentTask := []string{broker.NewTaskID(), broker.NewTaskID(), broker.NewTaskID()}, 2
	answers := make(chan answer, len(ids))
	for i, id := range ids {
		req := tap(id, serials[i])
		if i == agentTask {
			req = broker.TaskRequest{V: broker.WireVersion, ID: id, Serial: serials[3], Tool: "run_agent_task", Args: json.RawMessage(`{"goal":"open Settings"}`),
				Holder: broker.Holder{Principal: "agent", Client: "silence-test"}}
		}
		go func() {
			res, err := gw.Run(ctx, req, nil)
			answers <- answer{res, err}
		}()
	}
	leased := make(chan error, 1)
	go func() {
		a, err := gw.Acquire(ctx, broker.AcquireRequest{V: broker.WireVersion, Serial: serials[2], Holder: broker.Holder{Principal: "agent"}})
		if err == nil {
			err = fmt.Errorf("answered %+v", a)
		}
		leased <- err
	}()
	for range ids {
		select {
		case a := <-answers:
			require.ErrorIs(t, a.err, broker.ErrNodeLost, "a caller of the silent node was answered %+v", a.res)
		case <-time.After(30 * time.Second):
			t.Fatal("a caller of the silent node is still waiting")
		}
	}
	select {
	case err := <-leased:
		require.ErrorIs(t, err, broker.ErrNodeLost)
	case <-time.After(30 * time.Second):
		t.Fatal("the lease's caller is still waiting")
	}
	grants := make(chan *nats.Msg, 4)
	gsub, err := gwNC.ChanSubscribe(fmt.Sprintf(broker.EventLeaseT, silenceNode, "*", "granted"), grants)
	require.NoError(t, err)
	t.Cleanup(func() { _ = gsub.Unsubscribe() })
	require.NoError(t, gwNC.Flush())
	link.release()

	for _, id := range ids {
		var rec broker.TaskResult
		farmtest.Eventually(t, 15*time.Second, func() bool {
			rec, err = gw.TaskRecord(ctx, id)
			return err == nil
		}, "the record of the task held on the silent node")
		assert.Equal(t, broker.OutcomeRefused, rec.Outcome, "%s %s: %s", rec.Tool, rec.Code, rec.Error)
		assert.True(t, rec.Started.IsZero(), "the record of %s shows a start: %s", rec.Tool, rec.Started)
		if rec.Code == broker.CodeNodeLost { // the node heard of its loss as it asked
			assert.Contains(t, rec.Error, "node n1 was declared lost by the farm as this task was about to start")
			continue
		}
		assert.Equal(t, broker.CodeCallerGone, rec.Code, "%s: %s", rec.Tool, rec.Error)
		assert.Contains(t, rec.Error, "node n1 was silent")
	}
	refused := "answered its caller already" // the lease request's
	farmtest.Eventually(t, 15*time.Second, func() bool { return said.Line(refused) != "" || len(grants) > 0 },
		"the node took the held lease request")
	assert.Zero(t, len(grants), "the node granted the lease request its caller was told had failed")
	for _, serial := range serials {
		assert.Equal(t, before[serial], phones[serial].InputLog(), "what reached %s", serial)
	}
	farmtest.Eventually(t, 15*time.Second, online(serials[2]), "%s online again in the gateway's view", serials[2])
	ls, err := gw.Leases(ctx)
	require.NoError(t, err)
	assert.Empty(t, ls, "a lease is held after its caller was told the node was lost")
	assert.NotEmpty(t, said.Line(refused), "the node did not say it refused the lease request")

	// The node serves again: a lease of the device no one holds, and a task.
	var held broker.LeaseAnswer
	farmtest.Eventually(t, 15*time.Second, func() bool {
		held, err = gw.Acquire(ctx, broker.AcquireRequest{V: broker.WireVersion, Serial: serials[2], Holder: broker.Holder{Principal: "next"}})
		return err == nil && held.OK
	}, "%s leased once the node is back (%v %+v)", serials[2], err, held)
	farmtest.Eventually(t, 15*time.Second, func() bool {
		res, err = gw.Run(ctx, tap(broker.NewTaskID(), serials[0]), nil)
		return err == nil && res.Outcome == broker.OutcomeSucceeded
	}, "a task runs once the node is back")
}

// stallLink forwards TCP to a NATS server and can hold what goes either way without closing
// anything, as a stopped process or a stalled network does: held, the bytes wait; let go, they
// arrive in order.
type stallLink struct {
	at   string       // the address to dial
	gate sync.RWMutex // each write holds it for reading; hold takes it
	mu   sync.Mutex
	held bool
}

func startStallLink(t *testing.T, target string) *stallLink {
	t.Helper()
	l := &stallLink{}
	l.at = tcplink.Forward(t, target, l.pipe)
	t.Cleanup(l.release) // run before Forward's, which waits for the pipes: they return once let go
	return l
}

func (l *stallLink) addr() string { return l.at }

// pipe copies src to dst: it reads on while the link is held, and writes what it read once
// it is let go.
func (l *stallLink) pipe(dst, src net.Conn) {
	chunks := make(chan []byte, 1<<12)
	go func() {
		defer close(chunks)
		for {
			b := make([]byte, 32<<10)
			n, err := src.Read(b)
			if n > 0 {
				chunks <- b[:n]
			}
			if err != nil {
				return
			}
		}
	}()
	for b := range chunks {
		l.gate.RLock()
		_, err := dst.Write(b)
		l.gate.RUnlock()
		if err != nil && !errors.Is(err, io.EOF) {
			_ = dst.Close()
			_ = src.Close()
		}
	}
	_ = dst.Close()
}

// hold stops what goes through the link, either way.
func (l *stallLink) hold() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.held {
		l.gate.Lock()
		l.held = true
	}
}

// release lets what waited go through, and what comes after it.
func (l *stallLink) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held {
		l.gate.Unlock()
		l.held = false
	}
}
