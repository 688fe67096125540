package nodes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// Lease requests held in NATS while the node was silent long enough to be declared lost,
// then let go, and one that comes just after. One whose gateway names a probe is asked about:
// its caller told the node was lost (a gateway's client), it is refused and nothing is held;
// its caller still waiting (a gateway that answers so), it is granted at once, not refused.
// One from an older gateway, which names no probe, is refused node_lost, as before.
func TestLeaseRequestsAfterASilenceAskTheirCallers(t *testing.T) {
	serials := []string{"n1-gone", "n1-old", "n1-wait"}
	var link *stallLink
	rig := startSilenceRig(t, func(server string) string { link = startStallLink(t, server); return link.addr() }, serials...)
	ctx, gw, gwNC, said := rig.ctx, rig.gw, rig.gwNC, rig.said

	link.hold()
	older := askLease(ctx, t, gwNC, broker.AcquireRequest{V: broker.WireVersion, Serial: serials[1], Holder: broker.Holder{Principal: "older"}, ID: "acq_older"})
	_, err := gw.Acquire(ctx, broker.AcquireRequest{V: broker.WireVersion, Serial: serials[0], Holder: broker.Holder{Principal: "told"}})
	require.ErrorIs(t, err, broker.ErrNodeLost, "the caller of the silent node")
	link.release()

	a := <-older
	assert.False(t, a.OK, "an older gateway's lease request held through the silence was granted")
	assert.Equal(t, broker.CodeNodeLost, a.Code, a.Error)
	farmtest.Eventually(t, 15*time.Second, func() bool { return said.Line("answered its caller already") != "" },
		"the node refused the request whose caller was told it was lost")

	// Just after the silence (the node has heard of its loss), a caller that waits.
	farmtest.Eventually(t, 15*time.Second, func() bool { return said.Line("the farm declared this node lost") != "" }, "the node heard of its loss")
	const probe = "c_stillwaits"
	asked := answerAsACaller(t, gwNC, probe, broker.CallerWaits)
	waiting := broker.AcquireRequest{V: broker.WireVersion, Serial: serials[2], Holder: broker.Holder{Principal: "waits"}, ID: "acq_waits", Probe: probe}
	a = <-askLease(ctx, t, gwNC, waiting)
	require.True(t, a.OK, "a lease request whose caller still waits was refused just after the silence: %s %s", a.Code, a.Error)
	require.NotNil(t, a.Lease)
	assert.Equal(t, serials[2], a.Lease.Serial)
	select {
	case id := <-asked:
		assert.Equal(t, broker.AcquireProbeID(waiting.ID), id, "the node asked about another call")
	default:
		t.Fatal("the lease was granted just after the silence without asking its caller")
	}

	var ls []broker.Lease
	farmtest.Eventually(t, 15*time.Second, func() bool {
		ls, err = gw.Leases(ctx)
		return err == nil && len(ls) > 0
	}, "the node's leases listed (%v)", err)
	require.Len(t, ls, 1, "leases held after the silence: %+v", ls)
	assert.Equal(t, serials[2], ls[0].Serial)
}

// answerAsACaller answers the node's probes on token as a gateway's client whose calls wait
// for their answers does (answer: broker.CallerWaits), and passes on the id of each call the
// node asks about.
func answerAsACaller(t *testing.T, nc *nats.Conn, token string, answer []byte) <-chan string {
	t.Helper()
	asked := make(chan string, 16)
	sub, err := nc.Subscribe(fmt.Sprintf(broker.ProgressT, silenceNode, token), func(m *nats.Msg) {
		asked <- string(m.Data)
		_ = nc.Publish(m.Reply, answer)
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	require.NoError(t, nc.Flush())
	return asked
}

// askLease sends req to the node's acquire endpoint as a gateway does, and passes on its answer.
func askLease(ctx context.Context, t *testing.T, nc *nats.Conn, req broker.AcquireRequest) <-chan broker.LeaseAnswer {
	t.Helper()
	data, err := json.Marshal(req)
	require.NoError(t, err)
	answer := make(chan broker.LeaseAnswer, 1)
	go func() {
		var a broker.LeaseAnswer
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		m, err := nc.RequestWithContext(rctx, fmt.Sprintf(broker.NodeGroupT, silenceNode)+"."+broker.EndpointAcquire, data)
		if err == nil {
			err = json.Unmarshal(m.Data, &a)
		}
		if err != nil {
			a.Error = err.Error()
		}
		answer <- a
	}()
	return answer
}
