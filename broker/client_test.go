package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Liveness timing of the tests that lose nodes: fake nodes beat every testBeat, and clients
// declare a node lost after testLostAfter, long enough that a loaded machine never loses a
// node that beats.
const (
	testBeat      = 50 * time.Millisecond
	testLostAfter = time.Second
	// waitLong bounds every wait for something that should happen: generous for a loaded
	// machine, still bounded.
	waitLong = 15 * time.Second
)

// holdTool is a tool the fake node does not answer: the call stays in flight, unless the test
// answers the request it holds.
const holdTool = "hold"

// fakeNode plays an edge node on its own NATS connection: it beats and answers its endpoints
// as package nodes does (which imports this package, so cannot be used here). It answers at
// once, except tasks of holdTool, whose requests it hands to the test.
type fakeNode struct {
	t      *testing.T
	name   string
	nc     *nats.Conn
	held   chan *nats.Msg    // requests of holdTool tasks, as they arrive: to answer or not
	aborts chan AbortRequest // abort requests, as they arrive

	mu       sync.Mutex
	boot     string
	beating  bool
	lastBeat time.Time // when the last heartbeat was sent
	calls    []string  // "endpoint serial", in order
}

// startFakeNode connects a fake node to the NATS of s, starts it beating with boot "boot-1"
// and serving its endpoints until the test ends.
func startFakeNode(t *testing.T, s *Stores, name string) *fakeNode {
	t.Helper()
	nc, err := nats.Connect(s.JS.Conn().ConnectedUrl())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	n := &fakeNode{t: t, name: name, nc: nc, held: make(chan *nats.Msg, 16), aborts: make(chan AbortRequest, 16)}
	_, err = nc.Subscribe(fmt.Sprintf(NodeGroupT, name)+".*", n.serve)
	require.NoError(t, err)
	require.NoError(t, nc.Flush())
	n.startBeats("boot-1")
	ctx := t.Context()
	go func() {
		tick := time.NewTicker(testBeat)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				n.beat()
			}
		}
	}()
	return n
}

// beat publishes a heartbeat if the node is beating. The lock makes stopBeats exact: no beat
// leaves after it returns.
func (n *fakeNode) beat() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.beating {
		return
	}
	b, _ := json.Marshal(Heartbeat{V: WireVersion, Node: n.name, Boot: n.boot, Sent: time.Now()})
	n.lastBeat = time.Now()
	_ = n.nc.Publish(fmt.Sprintf(HeartbeatT, n.name), b)
}

// startBeats makes the node beat (again) with boot, at once and then every testBeat.
func (n *fakeNode) startBeats(boot string) {
	n.mu.Lock()
	n.boot, n.beating = boot, true
	n.mu.Unlock()
	n.beat()
}

// stopBeats silences the node (its endpoints still answer) and returns when its last
// heartbeat left.
func (n *fakeNode) stopBeats() time.Time {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.beating = false
	require.NoError(n.t, n.nc.Flush())
	return n.lastBeat
}

// Calls returns the requests the node got, as "endpoint serial".
func (n *fakeNode) Calls() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.calls...)
}

func (n *fakeNode) serve(m *nats.Msg) {
	endpoint := m.Subject[strings.LastIndexByte(m.Subject, '.')+1:]
	var serial struct {
		Serial string `json:"serial"`
	}
	_ = json.Unmarshal(m.Data, &serial)
	n.mu.Lock()
	n.calls = append(n.calls, endpoint+" "+serial.Serial)
	n.mu.Unlock()
	var answer any
	switch endpoint {
	case EndpointTask:
		var req TaskRequest
		_ = json.Unmarshal(m.Data, &req)
		if req.Tool == holdTool {
			n.held <- m
			return
		}
		answer = TaskResult{V: WireVersion, ID: req.ID, Serial: req.Serial, Node: n.name, Tool: req.Tool,
			Outcome: OutcomeSucceeded, Text: req.Tool + " done by " + n.name}
	case EndpointAcquire:
		var req AcquireRequest
		_ = json.Unmarshal(m.Data, &req)
		answer = LeaseAnswer{V: WireVersion, OK: true, Lease: &Lease{V: WireVersion, Serial: req.Serial, Node: n.name, Holder: req.Holder}}
	case EndpointRelease:
		var req ReleaseRequest
		_ = json.Unmarshal(m.Data, &req)
		if req.Handle == "bad" {
			msg := nats.NewMsg(m.Reply)
			msg.Header.Set("Nats-Service-Error-Code", "400")
			msg.Header.Set("Nats-Service-Error", "bad handle")
			_ = m.RespondMsg(msg)
			return
		}
		answer = LeaseAnswer{V: WireVersion, OK: true}
	case EndpointAbort:
		var req AbortRequest
		_ = json.Unmarshal(m.Data, &req)
		n.aborts <- req
		answer = AbortAnswer{V: WireVersion, Aborted: []string{n.name + ":" + req.TaskID}}
	case EndpointLeases:
		answer = LeasesAnswer{V: WireVersion, Leases: []Lease{{V: WireVersion, Serial: "s-" + n.name, Node: n.name}}}
	default:
		return
	}
	b, _ := json.Marshal(answer)
	_ = m.Respond(b)
}

// putDevice writes a registry entry as its node would and returns its revision.
func putDevice(t *testing.T, s *Stores, e DeviceEntry) uint64 {
	t.Helper()
	e.V, e.Platform = WireVersion, "android"
	if e.Updated.IsZero() {
		e.Updated = time.Now()
	}
	b, err := json.Marshal(e)
	require.NoError(t, err)
	rev, err := s.Registry.Put(t.Context(), RegistryKey(e.Node, e.Serial), b)
	require.NoError(t, err)
	return rev
}

// startClient starts a client on the NATS of s and waits until it has read the registry.
func startClient(t *testing.T, s *Stores, opts ClientOptions) *Client {
	t.Helper()
	c, err := NewClient(t.Context(), s.JS.Conn(), s, opts)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), waitLong)
	defer cancel()
	require.NoError(t, c.WaitReady(ctx))
	require.NoError(t, c.Ready())
	return c
}

// call bounds one client call.
func call(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), waitLong)
	t.Cleanup(cancel)
	return ctx
}

// Each request goes to the node that owns the device and nowhere else; a device unknown or
// offline is refused without asking any node; calls to every node merge their answers.
func TestClientRoutesToOwnerNode(t *testing.T) {
	s := openStores(t)
	n1, n2 := startFakeNode(t, s, "n1"), startFakeNode(t, s, "n2")
	const wifi = "10.0.0.7:5555" // not a token: its key and subject are escaped
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateOnline})
	putDevice(t, s, DeviceEntry{Serial: wifi, Node: "n2", State: StateOnline})
	putDevice(t, s, DeviceEntry{Serial: "d-off", Node: "n1", State: StateOffline, Reason: "unplugged"})
	c := startClient(t, s, ClientOptions{})

	require.Len(t, c.Devices(), 3)
	d, ok := c.Device(wifi)
	require.True(t, ok)
	assert.Equal(t, "n2", d.Node)
	assert.Equal(t, []string{"n1", "n2"}, c.Nodes())

	res, err := c.Run(call(t), TaskRequest{V: WireVersion, ID: NewTaskID(), Serial: "d1", Tool: "tap_xy"}, nil)
	require.NoError(t, err)
	assert.Equal(t, OutcomeSucceeded, res.Outcome)
	assert.Equal(t, "n1", res.Node)
	res, err = c.Run(call(t), TaskRequest{V: WireVersion, ID: NewTaskID(), Serial: wifi, Tool: "tap_xy"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "n2", res.Node)
	lease, err := c.Acquire(call(t), AcquireRequest{V: WireVersion, Serial: wifi, Holder: Holder{Principal: "alice"}})
	require.NoError(t, err)
	require.NotNil(t, lease.Lease)
	assert.Equal(t, "n2", lease.Lease.Node)
	_, err = c.Release(call(t), ReleaseRequest{V: WireVersion, Serial: "d1", Handle: "good"})
	require.NoError(t, err)
	assert.Equal(t, []string{"task d1", "release d1"}, n1.Calls())
	assert.Equal(t, []string{"task " + wifi, "acquire " + wifi}, n2.Calls())

	// Refusals: no node is asked.
	res, err = c.Run(call(t), TaskRequest{V: WireVersion, ID: NewTaskID(), Serial: "nope", Tool: "tap_xy"}, nil)
	require.NoError(t, err)
	assert.Equal(t, OutcomeRefused, res.Outcome)
	assert.Equal(t, CodeUnknownDevice, res.Code)
	res, err = c.Run(call(t), TaskRequest{V: WireVersion, ID: NewTaskID(), Serial: "d-off", Tool: "tap_xy"}, nil)
	require.NoError(t, err)
	assert.Equal(t, OutcomeRefused, res.Outcome)
	assert.Equal(t, CodeOffline, res.Code)
	assert.Contains(t, res.Error, "unplugged")
	_, err = c.Acquire(call(t), AcquireRequest{V: WireVersion, Serial: "nope"})
	assert.ErrorContains(t, err, `no device "nope"`)
	assert.Len(t, n1.Calls(), 2, "a refused request reached n1")

	// A node's refusal is an error naming the node and its reason.
	_, err = c.Release(call(t), ReleaseRequest{V: WireVersion, Serial: "d1", Handle: "bad"})
	assert.ErrorContains(t, err, "node n1 refused the release request (400): bad handle")

	// Every node's answers, merged.
	leases, err := c.Leases(call(t))
	require.NoError(t, err)
	require.Len(t, leases, 2)
	assert.Equal(t, []string{"s-n1", "s-n2"}, []string{leases[0].Serial, leases[1].Serial})
	ab, err := c.Abort(call(t), AbortRequest{V: WireVersion, TaskID: "t_x"})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"n1:t_x", "n2:t_x"}, ab.Aborted)
	ab, err = c.Abort(call(t), AbortRequest{V: WireVersion, Serial: wifi, TaskID: "t_y"})
	require.NoError(t, err)
	assert.Equal(t, []string{"n2:t_y"}, ab.Aborted, "an abort by serial went beyond the owner node")
}

// A node whose heartbeats stop is lost to callers within LostAfter (plus a check period): its
// call in flight fails with ErrNodeLost, later ones fail at once without reaching it, and
// other nodes are served. When it beats again it is served again.
func TestClientNodeLostAndBack(t *testing.T) {
	s := openStores(t)
	n1 := startFakeNode(t, s, "n1")
	startFakeNode(t, s, "n2")
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateOnline})
	putDevice(t, s, DeviceEntry{Serial: "d2", Node: "n2", State: StateOnline})
	c := startClient(t, s, ClientOptions{LostAfter: testLostAfter})

	_, err := c.Acquire(call(t), AcquireRequest{V: WireVersion, Serial: "d1"})
	require.NoError(t, err, "n1 not served while it beats")

	// A call in flight when n1 goes silent.
	type outcome struct {
		res TaskResult
		err error
	}
	inflight := make(chan outcome, 1)
	ctx, cancel := context.WithTimeout(t.Context(), 4*waitLong) // far beyond the bound below
	defer cancel()
	go func() {
		res, err := c.Run(ctx, TaskRequest{V: WireVersion, ID: NewTaskID(), Serial: "d1", Tool: holdTool}, nil)
		inflight <- outcome{res, err}
	}()
	select {
	case <-n1.held:
	case <-time.After(waitLong):
		t.Fatal("the held task did not reach n1")
	}
	last := n1.stopBeats()

	var got outcome
	select {
	case got = <-inflight:
	case <-time.After(2 * waitLong):
		t.Fatal("the call in flight to a silent node did not end")
	}
	silent := time.Since(last)
	require.ErrorIs(t, got.err, ErrNodeLost)
	assert.ErrorContains(t, got.err, "node n1 was lost during the call")
	assert.GreaterOrEqual(t, silent, testLostAfter, "n1 declared lost before it was silent for LostAfter")
	// The bound is LostAfter+checkEvery; the rest is slack for a loaded machine.
	assert.Less(t, silent, testLostAfter+checkEvery+5*time.Second, "n1 not declared lost within the bound")
	assert.Equal(t, []string{"n2"}, c.Nodes())

	// Later calls fail at once, though n1 still answers on its subjects.
	before := len(n1.Calls())
	_, err = c.Acquire(call(t), AcquireRequest{V: WireVersion, Serial: "d1"})
	require.ErrorIs(t, err, ErrNodeLost)
	assert.ErrorContains(t, err, "node n1 is lost")
	_, err = c.Run(call(t), TaskRequest{V: WireVersion, ID: NewTaskID(), Serial: "d1", Tool: "tap_xy"}, nil)
	require.ErrorIs(t, err, ErrNodeLost)
	assert.Len(t, n1.Calls(), before, "a request reached the lost node")
	// n2 is served, and calls to every node skip n1.
	_, err = c.Acquire(call(t), AcquireRequest{V: WireVersion, Serial: "d2"})
	require.NoError(t, err)
	leases, err := c.Leases(call(t))
	require.NoError(t, err)
	require.Len(t, leases, 1)
	assert.Equal(t, "n2", leases[0].Node)

	// n1 beats again (a restart, new boot): alive and served again.
	n1.startBeats("boot-2")
	require.Eventually(t, func() bool { return len(c.Nodes()) == 2 }, waitLong, 10*time.Millisecond,
		"n1 not alive again after beating: %v", c.Nodes())
	ans, err := c.Acquire(call(t), AcquireRequest{V: WireVersion, Serial: "d1"})
	require.NoError(t, err, "n1 not served after it came back")
	assert.Equal(t, "n1", ans.Lease.Node)
	res, err := c.Run(call(t), TaskRequest{V: WireVersion, ID: NewTaskID(), Serial: "d1", Tool: "tap_xy"}, nil)
	require.NoError(t, err)
	assert.Equal(t, OutcomeSucceeded, res.Outcome)
}

// A node the registry names but that never beats is given LostAfter, then lost: its calls
// fail with ErrNodeLost instead of going unanswered.
func TestClientNodeThatNeverBeats(t *testing.T) {
	s := openStores(t)
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "ghost", State: StateOnline})
	putDevice(t, s, DeviceEntry{Serial: "d2", Node: "gone", State: StateOffline})
	start := time.Now()
	c := startClient(t, s, ClientOptions{LostAfter: testLostAfter})
	// Before LostAfter has passed (a loaded machine may leave no time for it), the ghost is
	// known and not yet lost: a call finds no one to answer.
	nodes := c.Nodes()
	_, err := c.Acquire(call(t), AcquireRequest{V: WireVersion, Serial: "d1"})
	if time.Since(start) < testLostAfter {
		assert.Equal(t, []string{"ghost"}, nodes, "a node of the registry not expected (or an offline one expected)")
		assert.ErrorContains(t, err, "no responders", "a node given time to beat reported lost")
	}
	require.Eventually(t, func() bool { return len(c.Nodes()) == 0 }, waitLong, 10*time.Millisecond)
	assert.GreaterOrEqual(t, time.Since(start), testLostAfter, "ghost lost before LostAfter")
	_, err = c.Acquire(call(t), AcquireRequest{V: WireVersion, Serial: "d1"})
	assert.ErrorIs(t, err, ErrNodeLost)
}

// A caller that gives up (its context ends) has its task aborted on the node.
func TestClientCancelAbortsTask(t *testing.T) {
	s := openStores(t)
	n1 := startFakeNode(t, s, "n1")
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateOnline})
	c := startClient(t, s, ClientOptions{LostAfter: testLostAfter})

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	id := NewTaskID()
	go func() {
		_, err := c.Run(ctx, TaskRequest{V: WireVersion, ID: id, Serial: "d1", Tool: holdTool}, nil)
		done <- err
	}()
	select {
	case <-n1.held:
	case <-time.After(waitLong):
		t.Fatal("the held task did not reach n1")
	}
	cancel()
	select {
	case ab := <-n1.aborts:
		assert.Equal(t, "d1", ab.Serial)
		assert.Equal(t, id, ab.TaskID)
	case <-time.After(waitLong):
		t.Fatal("the cancelled task was not aborted on its node")
	}
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
		assert.False(t, errors.Is(err, ErrNodeLost))
	case <-time.After(waitLong):
		t.Fatal("Run did not return after its context ended")
	}
}
