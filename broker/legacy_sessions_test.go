package broker

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// otherSessions opens the sessions' bucket on a connection of its own, as an older gateway
// in another process writes it.
func otherSessions(t *testing.T, url string) jetstream.KeyValue {
	t.Helper()
	nc, err := nats.Connect(url, nats.MaxReconnects(-1), nats.ReconnectWait(10*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	kv, err := js.KeyValue(t.Context(), SessionBucket)
	require.NoError(t, err)
	return kv
}

// The watch of the keys of Corral before principal keys vouches that a key is absent only
// once it has caught up, and never for one it saw (written before it started, or since, by
// another process), until it is deleted or purged; a key this client writes counts at once,
// before the watch brings it. A stopped watch vouches for nothing.
func TestLegacySessionsVouchOnlyForWhatTheWatchSaw(t *testing.T) {
	s := openStores(t)
	c := startClient(t, s, ClientOptions{})
	other := otherSessions(t, s.JS.Conn().ConnectedUrl())
	put := func(key string) {
		_, err := other.Put(t.Context(), key, []byte(`{"serial":"n1-p1"}`))
		require.NoError(t, err)
	}
	put("mcp-session-before")

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	l := c.FollowLegacySessions(ctx)
	require.Eventually(t, func() bool { return l.Absent("mcp-session-none") }, waitLong, 5*time.Millisecond, "the watch never caught up")
	assert.False(t, l.Absent("mcp-session-before"), "an entry written before the watch")
	assert.False(t, l.Absent(PrincipalSessionKey(Anonymous, "mcp-session-none")), "a key under a principal is not the watch's")

	put("mcp-session-after")
	require.Eventually(t, func() bool { return !l.Absent("mcp-session-after") }, waitLong, 5*time.Millisecond, "an entry written since")
	require.NoError(t, other.Delete(t.Context(), "mcp-session-after"))
	require.NoError(t, other.Purge(t.Context(), "mcp-session-before"))
	require.Eventually(t, func() bool { return l.Absent("mcp-session-after") && l.Absent("mcp-session-before") },
		waitLong, 5*time.Millisecond, "deleted and purged entries")

	require.NoError(t, c.UpdateSessionDevice(t.Context(), "mcp-session-own", func(d *SessionDefault) bool {
		d.Serial = "n1-p2"
		return true
	}))
	assert.False(t, l.Absent("mcp-session-own"), "this client's own write, before the watch brings it")

	cancel()
	select {
	case <-l.Done():
	case <-time.After(waitLong):
		t.Fatal("the watch runs on after its context ended")
	}
	assert.False(t, l.Absent("mcp-session-none"), "a stopped watch vouches for nothing")
}

// After NATS restarts, an entry written once the connection is back is never answered absent:
// the watch vouches again only once it is made again and caught up, and it sees that entry.
func TestLegacySessionsAfterNATSRestart(t *testing.T) {
	r := startRestartableNATS(t)
	nc, err := Connect(ConnectOptions{URL: r.ns.ClientURL(), Name: "gateway"}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	s, err := EnsureStores(t.Context(), nc, StoreOptions{})
	require.NoError(t, err)
	c := startClient(t, s, ClientOptions{})
	l := c.FollowLegacySessions(t.Context())
	require.Eventually(t, func() bool { return l.Absent("mcp-session-none") }, waitLong, 5*time.Millisecond, "the watch never caught up")

	r.restart()
	other := otherSessions(t, r.ns.ClientURL())
	require.Eventually(t, nc.IsConnected, waitLong, 5*time.Millisecond, "the client's connection is back")
	_, err = other.Put(t.Context(), "mcp-session-while-away", []byte(`{}`))
	require.NoError(t, err)
	deadline := time.Now().Add(waitLong)
	for !l.Absent("mcp-session-none") || l.Absent("mcp-session-while-away") {
		require.False(t, l.Absent("mcp-session-while-away"), "an entry written after the restart answered absent")
		require.True(t, time.Now().Before(deadline), "the watch never caught up again")
		time.Sleep(time.Millisecond)
	}
}
