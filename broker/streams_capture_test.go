package broker

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A node opening a store another node made with what leaks (the gateway's inbox among its
// subjects, a republish, a source of the sessions) says so once, with the store, what differs
// and the fix, and goes on: it may not change the store. A hub's source of a site's store is
// Corral's, and not said. Once a gateway's start repaired the store, nothing is said.
func TestNodeOpeningATamperedStoreSaysSo(t *testing.T) {
	connect := nodeUsersFarm(t)
	want := kvStreamConfig(jetstream.KeyValueConfig{Bucket: RegistryBucket, History: 1, Storage: jetstream.FileStorage}, false)
	tampered := want
	tampered.Subjects = []string{"$KV." + RegistryBucket + ".>", "_INBOX_gateway.>"}
	tampered.RePublish = &jetstream.RePublish{Source: ">", Destination: "_INBOX_node-nA.spy.>"}
	site := &jetstream.StreamSource{Name: kvStream(RegistryBucket), External: &jetstream.ExternalStream{APIPrefix: siteAPI("paris")}}
	tampered.Sources = []*jetstream.StreamSource{site, {Name: kvStream(SessionBucket)}}
	answer, err := createAs(t, connect("node-nA"), tampered)
	require.NoError(t, err)
	require.NotContains(t, answer, `"error"`)

	var logged bytes.Buffer
	nB := connect("node-nB")
	s, err := EnsureStores(t.Context(), nB, StoreOptions{CreateOnly: true, Node: true, Log: slog.New(slog.NewTextHandler(&logged, nil))})
	require.NoError(t, err, "a node refused a store it may not repair")
	require.Equal(t, 1, strings.Count(logged.String(), "level=WARN"), logged.String())
	for _, said := range []string{"store differs from Corral's", "start a gateway, whose start repairs it", "stream=" + kvStream(RegistryBucket),
		"subjects _INBOX_gateway.>", "republish of > to _INBOX_node-nA.spy.>", "source " + kvStream(SessionBucket)} {
		assert.Contains(t, logged.String(), said)
	}
	assert.NotContains(t, logged.String(), "paris", "a hub's source of its site was said")
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "nB", State: StateOnline}) // it serves

	_, err = EnsureStores(t.Context(), connect("gateway"), StoreOptions{})
	require.NoError(t, err)
	logged.Reset()
	_, err = EnsureStores(t.Context(), nB, StoreOptions{CreateOnly: true, Node: true, Log: slog.New(slog.NewTextHandler(&logged, nil))})
	require.NoError(t, err)
	assert.Empty(t, logged.String(), "a repaired store was said")
}

// A stream whose subjects take the gateway's inbox (any of its subjects colliding with it) is
// the first thing a gateway's start changes: it loses those subjects, and the start says so.
func TestGatewayStartStopsAStoreTakingItsReplies(t *testing.T) {
	connect := nodeUsersFarm(t)
	taking := jetstream.StreamConfig{Name: EventStream, Subjects: []string{Events, "_INBOX_gateway.*.*"}, Storage: jetstream.FileStorage, AllowDirect: true}
	answer, err := createAs(t, connect("node-nA"), taking)
	require.NoError(t, err)
	require.NotContains(t, answer, `"error"`)
	var logged bytes.Buffer
	gw, err := EnsureStores(t.Context(), connect("gateway"), StoreOptions{Log: slog.New(slog.NewTextHandler(&logged, nil))})
	require.NoError(t, err)
	assert.Equal(t, []string{Events}, gw.Events.CachedInfo().Config.Subjects)
	assert.Contains(t, logged.String(), `its subjects took this process's replies`)
	assert.Contains(t, logged.String(), `removed="subjects _INBOX_gateway.*.*"`)
	info, err := gw.Events.Info(t.Context())
	require.NoError(t, err)
	assert.EqualValues(t, 1, info.State.Msgs, "only the answer that found the store landed in it")
}

func TestSubjectsCollide(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"_INBOX_gateway.>", "_INBOX_gateway.>", true},
		{">", "_INBOX_gateway.>", true},
		{"*.>", "_INBOX_gateway.>", true},
		{"_INBOX_gateway.*.*", "_INBOX_gateway.>", true},
		{"_INBOX_gateway.x", "_INBOX_gateway.>", true},
		{"_INBOX_gateway", "_INBOX_gateway.>", false},
		{"_INBOX_gateway2.>", "_INBOX_gateway.>", false},
		{"_INBOX_admin.>", "_INBOX_gateway.>", false},
		{"$KV.corral_devices.>", "_INBOX_gateway.>", false},
		{"a.*", "a.b.c", false},
		{"a.*.c", "a.b.*", true},
	} {
		assert.Equal(t, c.want, subjectsCollide(c.a, c.b), "%s and %s", c.a, c.b)
		assert.Equal(t, c.want, subjectsCollide(c.b, c.a), "%s and %s", c.b, c.a)
	}
}
