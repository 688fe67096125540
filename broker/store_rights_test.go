package broker

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
)

// createAs sends a raw STREAM.CREATE of cfg as the user of nc, as `nats stream add --config`
// does, and returns the server's answer; a refusal of the subject by NATS is the error.
func createAs(t *testing.T, nc *nats.Conn, cfg jetstream.StreamConfig) (string, error) {
	t.Helper()
	ctx, stop := watchRefusalOf(t.Context(), nc, func(string) bool { return true })
	defer stop()
	b, err := json.Marshal(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	m, err := nc.RequestWithContext(ctx, jsAPI+"STREAM.CREATE."+cfg.Name, b)
	if r, ok := context.Cause(ctx).(*RefusedError); ok {
		return "", r
	}
	if err != nil {
		return "", err
	}
	return string(m.Data), nil
}

// A node's NATS user may not create the sessions' bucket nor the lease groups' (QA D1: one it
// made first could republish every gateway reply, lease handles among them, to a subject of
// its own), nor read their stream info; it still starts first on an empty farm, creating the
// stores it uses.
func TestNodeUserCannotCreateSessionsNorLeaseGroups(t *testing.T) {
	connect := nodeUsersFarm(t)
	nc := connect("node-nA")
	spy := jetstream.StreamConfig{Name: kvStream(LeaseGroupBucket), Subjects: []string{"$KV." + LeaseGroupBucket + ".>", "_INBOX_gateway.>"},
		Storage: jetstream.FileStorage, RePublish: &jetstream.RePublish{Source: ">", Destination: "corral.v1.node.nA.spy.>"}}
	for _, cfg := range []jetstream.StreamConfig{spy, kvStreamConfig(jetstream.KeyValueConfig{Bucket: SessionBucket, Storage: jetstream.MemoryStorage}, true)} {
		answer, err := createAs(t, nc, cfg)
		var refused *RefusedError
		require.ErrorAs(t, err, &refused, "%s created by a node: %s", cfg.Name, answer)
		assert.Equal(t, jsAPI+"STREAM.CREATE."+cfg.Name, refused.Subject)
	}
	for _, s := range []string{kvStream(SessionBucket), kvStream(LeaseGroupBucket)} {
		ctx, stop := watchRefusalOf(t.Context(), nc, func(string) bool { return true })
		_, _ = nc.RequestWithContext(ctx, jsAPI+"STREAM.INFO."+s, nil)
		var refused *RefusedError
		assert.ErrorAs(t, context.Cause(ctx), &refused, "stream info of %s", s)
		stop()
	}

	// A node first on the farm makes the stores it uses, and no other.
	s, err := EnsureStores(t.Context(), nc, StoreOptions{CreateOnly: true, Node: true})
	require.NoError(t, err)
	assert.Nil(t, s.Sessions)
	gw, err := EnsureStores(t.Context(), connect("gateway"), StoreOptions{})
	require.NoError(t, err)
	_, err = gw.JS.Stream(t.Context(), kvStream(LeaseGroupBucket))
	assert.NoError(t, err, "a gateway's start makes the lease groups' bucket")
}

// A store a node made with more than Corral gives it (another user's inbox among its subjects,
// a republish to a subject the node reads, a source of the sessions) is made Corral's at a
// gateway's start, with a WARN naming what was removed; the node's subscription to the
// republish hears nothing of the gateway's writes since (QA D1's spy).
func TestGatewayStartRepairsAStoreANodeMade(t *testing.T) {
	connect := nodeUsersFarm(t)
	nc := connect("node-nA")
	want := kvStreamConfig(jetstream.KeyValueConfig{Bucket: RegistryBucket, History: 1, Storage: jetstream.FileStorage}, false)
	tampered := want
	tampered.Subjects = []string{"$KV." + RegistryBucket + ".>", "_INBOX_gateway.>"}
	tampered.RePublish = &jetstream.RePublish{Source: ">", Destination: "corral.v1.node.nA.spy.>"}
	tampered.Sources = []*jetstream.StreamSource{{Name: kvStream(SessionBucket)}}
	answer, err := createAs(t, nc, tampered)
	require.NoError(t, err)
	require.NotContains(t, answer, `"error"`)

	var logged bytes.Buffer
	gwConn := connect("gateway")
	gw, err := EnsureStores(t.Context(), gwConn, StoreOptions{Log: slog.New(slog.NewTextHandler(&logged, nil))})
	require.NoError(t, err)
	st, err := gw.JS.Stream(t.Context(), kvStream(RegistryBucket))
	require.NoError(t, err)
	cfg := st.CachedInfo().Config
	assert.Equal(t, []string{"$KV." + RegistryBucket + ".>"}, cfg.Subjects)
	assert.Nil(t, cfg.RePublish)
	assert.Empty(t, cfg.Sources)
	for _, removed := range []string{"store repaired", "stream=" + kvStream(RegistryBucket), "subjects _INBOX_gateway.>", "republish of > to corral.v1.node.nA.spy.>", "source " + kvStream(SessionBucket)} {
		assert.Contains(t, logged.String(), removed)
	}

	// The spy: what it hears of a gateway's write, before the gateway's mark after it.
	var mu sync.Mutex
	var heard []string
	marked := make(chan struct{})
	sub, err := nc.Subscribe("corral.v1.node.nA.>", func(m *nats.Msg) {
		if m.Subject == "corral.v1.node.nA.mark" {
			close(marked)
			return
		}
		mu.Lock()
		heard = append(heard, m.Subject)
		mu.Unlock()
	})
	require.NoError(t, err)
	require.NoError(t, nc.Flush())
	_, err = gw.Registry.Put(t.Context(), "nA.a1", []byte("entry"))
	require.NoError(t, err)
	require.NoError(t, gwConn.Publish("corral.v1.node.nA.mark", nil))
	select {
	case <-marked:
	case <-time.After(10 * time.Second):
		t.Fatal("the mark never reached the node")
	}
	require.NoError(t, sub.Unsubscribe())
	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, heard, "the node heard the gateway's write")

	// A second start finds nothing to repair.
	logged.Reset()
	_, err = EnsureStores(t.Context(), gwConn, StoreOptions{Log: slog.New(slog.NewTextHandler(&logged, nil))})
	require.NoError(t, err)
	assert.NotContains(t, logged.String(), "store repaired")
}

// A store a node made with what nats-server cannot change (memory storage) stops a gateway's
// start with the store named, what differs and how an admin fixes it; not with the hint that
// JetStream may be off.
func TestGatewayStartRefusesAStoreItCannotRepair(t *testing.T) {
	connect := nodeUsersFarm(t)
	cfg := kvStreamConfig(jetstream.KeyValueConfig{Bucket: LeaseBucket, Storage: jetstream.MemoryStorage}, false)
	answer, err := createAs(t, connect("node-nA"), cfg)
	require.NoError(t, err)
	require.NotContains(t, answer, `"error"`)
	_, err = EnsureStores(t.Context(), connect("gateway"), StoreOptions{})
	require.Error(t, err)
	for _, said := range []string{kvStream(LeaseBucket), "storage memory (Corral's: file)", "nats stream rm " + kvStream(LeaseBucket)} {
		assert.Contains(t, err.Error(), said)
	}
	assert.NotContains(t, err.Error(), "JetStream enabled")
}

// The lease groups' bucket a gateway's start makes is the one nats.go made before it did (an
// older Corral's, made at a farm's first count > 1 acquire): a start on it changes nothing,
// and clients open it.
func TestLeaseGroupsBucketMadeAtStartIsNATSGos(t *testing.T) {
	connect := nodeUsersFarm(t)
	nc := connect("gateway")
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	_, err = js.CreateKeyValue(t.Context(), jetstream.KeyValueConfig{Bucket: LeaseGroupBucket,
		Description: "Corral lease groups (acquire_device count > 1), keyed by the group handle's SHA-256; member handles sealed",
		History:     1, Replicas: 1, Storage: jetstream.FileStorage, LimitMarkerTTL: groupKeep})
	require.NoError(t, err)
	st, err := js.Stream(t.Context(), kvStream(LeaseGroupBucket))
	require.NoError(t, err)
	natsGos := st.CachedInfo().Config
	var logged bytes.Buffer
	_, err = EnsureStores(t.Context(), nc, StoreOptions{Log: slog.New(slog.NewTextHandler(&logged, nil))})
	require.NoError(t, err)
	assert.NotContains(t, logged.String(), "store repaired")
	st, err = js.Stream(t.Context(), kvStream(LeaseGroupBucket))
	require.NoError(t, err)
	assert.Equal(t, natsGos, st.CachedInfo().Config)
	_, err = openLeaseGroups(t.Context(), js)
	assert.NoError(t, err)
}

// A hub's sources of its sites are kept by a start that names no sites; any other source goes.
func TestSiteSourcesOnly(t *testing.T) {
	s := kvStream(RegistryBucket)
	site := &jetstream.StreamSource{Name: s, External: &jetstream.ExternalStream{APIPrefix: siteAPI("paris")}}
	kept := siteSourcesOnly(s, []*jetstream.StreamSource{
		site,
		{Name: kvStream(SessionBucket), External: &jetstream.ExternalStream{APIPrefix: siteAPI("paris")}}, // another store
		{Name: kvStream(SessionBucket)},                                          // this domain's
		{Name: s, External: &jetstream.ExternalStream{APIPrefix: "$JS.API"}},     // no site's domain
		{Name: s, External: &jetstream.ExternalStream{APIPrefix: "$JS.a.b.API"}}, // no site's name
	})
	assert.Equal(t, []*jetstream.StreamSource{site}, kept)
}

// The operator role, read-only, may neither list nor delete the consumers of the streams it
// reads (QA D2: deleting a gateway's watch in a loop kept its view of the farm stale); its own
// watch still works, and the gateway's goes on.
func TestOperatorCannotListNorDeleteConsumers(t *testing.T) {
	var users []embedded.User
	for _, r := range []Role{RoleGateway, RoleOperator} {
		p, err := PermissionsFor(r, "")
		require.NoError(t, err)
		users = append(users, embedded.User{Name: UserName(r, ""), Password: "pw", Permissions: embedded.Permissions(p)})
	}
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Users: users}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	pw := filepath.Join(t.TempDir(), "pw")
	require.NoError(t, os.WriteFile(pw, []byte("pw"), 0o600))
	connect := func(user string) *nats.Conn {
		nc, err := Connect(ConnectOptions{URL: ns.ClientURL(), User: user, PasswordFile: pw}, slog.New(slog.DiscardHandler))
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		return nc
	}
	ctx := t.Context()
	gw, err := EnsureStores(ctx, connect("gateway"), StoreOptions{})
	require.NoError(t, err)
	_, err = gw.Registry.Put(ctx, "n1.d1", []byte("1"))
	require.NoError(t, err)
	gwWatch, err := gw.Registry.WatchAll(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = gwWatch.Stop() })
	st, err := gw.JS.Stream(ctx, kvStream(RegistryBucket))
	require.NoError(t, err)
	names := st.ConsumerNames(ctx)
	var gwConsumer string
	for n := range names.Name() {
		gwConsumer = n
	}
	require.NotEmpty(t, gwConsumer)

	op := connect("operator")
	for _, subject := range []string{
		jsAPI + "CONSUMER.DELETE." + kvStream(RegistryBucket) + "." + gwConsumer,
		jsAPI + "CONSUMER.NAMES." + kvStream(RegistryBucket),
		jsAPI + "CONSUMER.LIST." + kvStream(RegistryBucket),
	} {
		rctx, stop := watchRefusalOf(ctx, op, func(string) bool { return true })
		_, _ = op.RequestWithContext(rctx, subject, nil)
		var refused *RefusedError
		assert.ErrorAs(t, context.Cause(rctx), &refused, subject)
		stop()
	}
	var after []string
	for n := range st.ConsumerNames(ctx).Name() {
		after = append(after, n)
	}
	assert.Contains(t, after, gwConsumer, "the gateway's watch is still there")

	js, err := jetstream.New(op)
	require.NoError(t, err)
	kv, err := js.KeyValue(ctx, RegistryBucket)
	require.NoError(t, err)
	w, err := kv.WatchAll(ctx)
	require.NoError(t, err)
	select {
	case e := <-w.Updates():
		require.NotNil(t, e)
		assert.Equal(t, "n1.d1", e.Key())
	case <-time.After(10 * time.Second):
		t.Fatal("the operator's watch delivered nothing")
	}
}
