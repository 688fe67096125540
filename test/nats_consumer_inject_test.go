package test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A NATS user that may create consumers (the operator role, on every stream it reads) but may
// send a node nothing has push consumers deliver lease events to the node's abort endpoint
// and registry entries to its acquire endpoint: NATS lets it name any deliver subject, and
// both carry a serial a node would act on. The node drops what JetStream delivers: the task
// runs to its end, and no lease is taken.
func TestConsumerDeliveriesReachNoNodeEndpoint(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 2, Auth: true})
	serials := []string{f.Devices()[0].Serial, f.Devices()[1].Serial}
	slices.Sort(serials)
	victim, other := serials[0], serials[1]
	agent := f.Client("agent")
	l := acquire(t, agent, args("serial", victim))
	done := farmtest.Go(t, agent, "sleep", args("serial", victim, "lease", l.Lease.Handle, "seconds", 5))
	waitDeviceState(t, f, victim, broker.StateBusy, "the victim running its sleep")

	nc, err := broker.Connect(f.Connect("operator", "sneaky-operator"), nil)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	node := fmt.Sprintf(broker.NodeGroupT, "n1")
	sneak := func(stream, filter, endpoint string) jetstream.Consumer {
		c, err := js.CreateOrUpdateConsumer(t.Context(), stream, jetstream.ConsumerConfig{FilterSubject: filter,
			DeliverSubject: node + "." + endpoint, AckPolicy: jetstream.AckNonePolicy})
		require.NoError(t, err, "the operator role may create consumers (if no longer, this test has lost its point)")
		return c
	}
	aborter := sneak(broker.EventStream, fmt.Sprintf(broker.EventLeaseT, "n1", broker.Token(victim), "granted"), broker.EndpointAbort)
	acquirer := sneak("KV_"+broker.RegistryBucket, "$KV."+broker.RegistryBucket+"."+broker.RegistryKey("n1", other), broker.EndpointAcquire)
	for _, c := range []jetstream.Consumer{aborter, acquirer} {
		farmtest.Eventually(t, 10*time.Second, func() bool {
			info, err := c.Info(t.Context())
			return err == nil && info.Delivered.Consumer >= 1
		}, "the consumer delivered to the node")
	}

	// An abort the node took would have ended the sleep within milliseconds of its delivery.
	select {
	case a := <-done:
		require.False(t, a.Get(t).IsError, "the sleep: %s", farmtest.Text(a.Get(t)))
	case <-time.After(30 * time.Second):
		t.Fatal("the sleep never ended")
	}
	leases, err := f.Gateway().Client.Leases(t.Context())
	require.NoError(t, err)
	for _, l := range leases {
		require.NotEqual(t, other, l.Serial, "a registry entry delivered to the acquire endpoint leased %s: %+v", other, l)
	}
	farmtest.MustCall(t, f.Client("someone"), "acquire_device", args("serial", other))
}
