package nodes_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// The node hears that the farm declared it lost while it asks a task's caller whether it still
// waits (here the task waited in the device's queue; one that came after a silence is asked
// the same way): the task is cancelled before its driver gets it. Its caller was most likely
// told the node was lost, and its record says that nothing ran: refused node_lost, no start,
// and nothing reached the phone.
func TestLossHeardWhileACallerIsAskedRecordsThatNothingRan(t *testing.T) {
	const serial = "n1-a"
	rig := startSilenceRig(t, func(server string) string { return server }, serial)
	ctx, gw, gwNC, phone := rig.ctx, rig.gw, rig.gwNC, rig.phones[serial]

	held, err := gw.Acquire(ctx, broker.AcquireRequest{V: broker.WireVersion, Serial: serial, Holder: broker.Holder{Principal: "first"}})
	require.NoError(t, err)
	require.True(t, held.OK, "%s %s", held.Code, held.Error)

	// The caller's gateway: asked, it says nothing, and the farm declares the node lost.
	const probe = "c_asked"
	asked := make(chan string, 1)
	sub, err := gwNC.Subscribe(fmt.Sprintf(broker.ProgressT, silenceNode, probe), func(m *nats.Msg) {
		ev := fmt.Sprintf(`{"v":1,"kind":"node","node":%q,"what":"lost","at":%q}`, silenceNode, time.Now().Format(time.RFC3339Nano))
		_ = gwNC.Publish(fmt.Sprintf(broker.EventNodeT, silenceNode, "lost"), []byte(ev))
		asked <- string(m.Data)
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	require.NoError(t, gwNC.Flush())

	before := slices.Clone(phone.InputLog())
	id := broker.NewTaskID()
	task := broker.TaskRequest{V: broker.WireVersion, ID: id, Serial: serial, Tool: "tap_xy", Args: json.RawMessage(`{"x":0.5,"y":0.5}`),
		Holder: broker.Holder{Principal: "second"}, WaitMS: 30_000, Probe: probe}
	req, err := task.AppendJSON(nil)
	require.NoError(t, err)
	answered := make(chan *nats.Msg, 1)
	inbox := gwNC.NewInbox()
	asub, err := gwNC.ChanSubscribe(inbox, answered)
	require.NoError(t, err)
	t.Cleanup(func() { _ = asub.Unsubscribe() })
	require.NoError(t, gwNC.PublishRequest(fmt.Sprintf(broker.NodeGroupT, silenceNode)+"."+broker.EndpointTask, inbox, req))
	farmtest.Eventually(t, 15*time.Second, func() bool { d, _ := gw.Device(serial); return d.Queued > 0 }, "the task queued behind the lease")
	released, err := gw.Release(ctx, broker.ReleaseRequest{V: broker.WireVersion, Serial: serial, Handle: held.Lease.Handle})
	require.NoError(t, err)
	require.True(t, released.OK, "%s %s", released.Code, released.Error)
	select {
	case got := <-asked:
		require.Equal(t, id, got)
	case <-time.After(15 * time.Second):
		t.Fatal("the task's caller was not asked when its turn came")
	}

	var rec broker.TaskResult
	farmtest.Eventually(t, 15*time.Second, func() bool {
		rec, err = gw.TaskRecord(ctx, id)
		return err == nil
	}, "the task's record")
	assert.Equal(t, broker.OutcomeRefused, rec.Outcome, "%s: %s", rec.Code, rec.Error)
	assert.Equal(t, broker.CodeNodeLost, rec.Code, rec.Error)
	assert.True(t, rec.Started.IsZero(), "the record shows a start: %s", rec.Started)
	assert.Contains(t, rec.Error, "tap_xy did not run")
	assert.Equal(t, before, phone.InputLog(), "what reached the phone")
}
