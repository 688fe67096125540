package nodes

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// A write that fails because the node's NATS connection is closed (for good, or as it stops)
// does not blame the NATS server's disk: a node closed by refused credentials said "check the
// NATS server's data disk" as it stopped.
func TestStoreTroubleOfAClosedConnectionIsNotTheDisk(t *testing.T) {
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	require.NoError(t, err)
	ns.Start()
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	require.True(t, ns.ReadyForConnections(10*time.Second))
	nc, err := broker.Connect(broker.ConnectOptions{URL: ns.ClientURL(), Name: "t"}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	ctx := context.Background()
	_, err = js.CreateStream(ctx, jetstream.StreamConfig{Name: "T", Subjects: []string{"t.>"}})
	require.NoError(t, err)
	nc.Close()

	_, err = js.Publish(ctx, "t.x", []byte("x"))
	require.ErrorIs(t, err, nats.ErrConnectionClosed)
	trouble := troubleOf(err)
	assert.Equal(t, troubleLink, trouble)
	assert.NotContains(t, trouble.short(), "data disk")
	assert.Contains(t, trouble.short(), "NATS connection is closed or refused")
	assert.NotContains(t, trouble.hint(), "Check the data disk")
	assert.Contains(t, trouble.hint(), "re-run corral nats-auth or fix the secret")
	assert.Equal(t, troubleLink, troubleOf(nats.ErrAuthorization))
	assert.Equal(t, troubleDisk, troubleOf(jetstream.ErrNoStreamResponse), "a server that does not answer may still be its disk")
}
