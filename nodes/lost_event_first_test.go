package nodes

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/sim"
)

// A device leased when its node is declared lost, the node hearing the loss's event before it
// sees the loss's entry (the two come by two subscriptions, in no set order): the revoke records
// it online, after the gateway's offline event, and the entry, seen next, records nothing more.
// It recorded offline, online, online. The test tells the node of the loss in that order itself
// (nothing is written to the registry but the node's own entries, which its watch leaves alone).
func TestLeasedDeviceHeardLostByEventFirstIsRecordedOnlineOnce(t *testing.T) {
	ctx, stores, log := mirrorStores(t)
	n, err := Start(ctx, Config{ID: "n1", NC: stores.JS.Conn(), Stores: stores, Metrics: actors.NewMetrics(prometheus.NewRegistry()), Log: log})
	require.NoError(t, err)
	t.Cleanup(n.Stop)
	p := sim.New("p1")
	t.Cleanup(func() { _ = p.Close() })
	n.AddDriver(p)
	entry := func() (d broker.DeviceEntry) {
		e, err := stores.Registry.Get(ctx, broker.RegistryKey("n1", "p1"))
		if err == nil {
			_ = json.Unmarshal(e.Value(), &d)
		}
		return d
	}
	require.Eventually(t, func() bool { return entry().State == broker.StateOnline }, 15*time.Second, 5*time.Millisecond, "never online")
	acquire := func(who string) {
		t.Helper()
		answers := make(chan broker.LeaseAnswer, 1)
		n.system.Root.Send(n.sched, actors.AcquireLease{Req: broker.AcquireRequest{V: broker.WireVersion, Serial: "p1",
			Holder: broker.Holder{Principal: who}}, Reply: func(a broker.LeaseAnswer) { answers <- a }})
		select {
		case a := <-answers:
			require.True(t, a.OK, "%+v", a)
		case <-time.After(15 * time.Second):
			t.Fatal("no answer to the lease")
		}
	}
	events := func() (whats []string) {
		for _, ev := range storedDeviceEvents(t, stores, "n1", "p1") {
			whats = append(whats, ev.What)
		}
		return whats
	}
	endsWith := func(what string) func() bool {
		return func() bool { e := events(); return len(e) > 0 && e[len(e)-1] == what }
	}
	acquire("alice")
	require.Eventually(t, endsWith(broker.StateLeased), 15*time.Second, 5*time.Millisecond, "never recorded leased")
	before := events()

	// The gateway's entry for the loss and its offline event, stored before it sends the loss's.
	require.Eventually(t, func() bool { return entry().State == broker.StateLeased }, 15*time.Second, 5*time.Millisecond)
	lost := entry()
	lost.State, lost.Reason, lost.Holder, lost.Updated = broker.StateOffline, "node n1 lost: no heartbeat for 2.5s", "", time.Now()
	ev, id := broker.LostDeviceEvent(lost)
	data, err := json.Marshal(ev)
	require.NoError(t, err)
	_, err = stores.JS.PublishMsg(ctx, &nats.Msg{Subject: fmt.Sprintf(broker.EventDevT, "n1", "p1", broker.StateOffline), Data: data},
		jetstream.WithMsgID(id))
	require.NoError(t, err)

	n.declaredLost("", nil) // the loss's event
	require.Eventually(t, endsWith(broker.StateOnline), 15*time.Second, 5*time.Millisecond, "the revoke never recorded online")
	n.declaredLost(" (its registry entries say so)", &lost) // then its entry
	acquire("bob")                                          // what the node records next, to wait for
	require.Eventually(t, endsWith(broker.StateLeased), 15*time.Second, 5*time.Millisecond, "never recorded leased again")
	assert.Equal(t, append(before, broker.StateOffline, broker.StateOnline, broker.StateLeased), events())
}

// storedDeviceEvents reads the event stream's device events of serial, oldest first.
func storedDeviceEvents(t *testing.T, stores *broker.Stores, node, serial string) []broker.Event {
	t.Helper()
	c, err := stores.Events.OrderedConsumer(t.Context(), jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{fmt.Sprintf(broker.EventDevT, node, broker.Token(serial), "*")}})
	require.NoError(t, err)
	info, err := c.Info(t.Context())
	require.NoError(t, err)
	var out []broker.Event
	for pending := info.NumPending; pending > 0; pending-- {
		m, err := c.Next(jetstream.FetchMaxWait(5 * time.Second))
		require.NoError(t, err)
		var ev broker.Event
		require.NoError(t, json.Unmarshal(m.Data(), &ev))
		out = append(out, ev)
	}
	return out
}
