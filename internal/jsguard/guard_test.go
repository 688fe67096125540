package jsguard

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
)

// A push consumer delivering a stream's messages, and its idle heartbeats, on a subject a
// guarded handler serves: the handler gets only what a client published there, and the drops
// are logged once.
func TestGuardDropsWhatJetStreamDelivers(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(ns.Shutdown)
	nc, err := nats.Connect(ns.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	ctx := t.Context()
	_, err = js.CreateStream(ctx, jetstream.StreamConfig{Name: "S", Subjects: []string{"stored.>"}})
	require.NoError(t, err)
	for _, subject := range []string{"stored.a", "stored.b"} {
		_, err = js.Publish(ctx, subject, []byte(`{"serial":"victim"}`))
		require.NoError(t, err)
	}

	rec := &logtest.Recorder{}
	g := New(slog.New(rec))
	var mu sync.Mutex
	var got []string
	var all, heartbeats atomic.Int32
	guarded := g.Msg(func(m *nats.Msg) {
		mu.Lock()
		got = append(got, string(m.Data))
		mu.Unlock()
	})
	_, err = nc.Subscribe("target", func(m *nats.Msg) {
		all.Add(1)
		if m.Header.Get("Status") != "" {
			heartbeats.Add(1)
		}
		guarded(m)
	})
	require.NoError(t, err)
	require.NoError(t, nc.Publish("target", []byte("from a client")))
	_, err = js.CreateOrUpdateConsumer(ctx, "S", jetstream.ConsumerConfig{Name: "sneaky", DeliverSubject: "target",
		AckPolicy: jetstream.AckNonePolicy, IdleHeartbeat: 100 * time.Millisecond})
	require.NoError(t, err)

	deadline := time.Now().Add(20 * time.Second)
	for all.Load() < 4 || heartbeats.Load() < 1 { // the client's, both stored, a heartbeat
		require.True(t, time.Now().Before(deadline), "deliveries: %d messages, %d heartbeats", all.Load(), heartbeats.Load())
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	assert.Equal(t, []string{"from a client"}, got)
	mu.Unlock()
	var warns int
	for _, r := range rec.Records() {
		if r.Level == slog.LevelWarn {
			warns++
		}
	}
	assert.Equal(t, 1, warns, "drops logged once a minute, not once each")
}

func TestDelivered(t *testing.T) {
	for _, c := range []struct {
		reply, status string
		want          bool
	}{
		{"_INBOX_gateway.abc.1", "", false},
		{"", "", false},
		{"$JS.ACK.S.sneaky.1.1.1.0.0", "", true},
		{"$JS.FC.S.sneaky.x", "", true},
		{"", "100", true},
	} {
		h := nats.Header{}
		if c.status != "" {
			h.Set("Status", c.status)
		}
		assert.Equal(t, c.want, Delivered(c.reply, h), "reply %q status %q", c.reply, c.status)
	}
}
