package mcp_test

import (
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// sessionsPolicy has two principals who may use the simulated phones.
const sessionsPolicy = `principals:
  - name: alice
    token: ` + leaseAliceToken + `
    tags: [sim]
  - name: bob
    token: ` + leaseBobToken + `
    tags: [sim]
`

// QA: one principal opening many sessions filled the sessions' bucket for everyone (4000
// filled 1 MiB), after which bob's select_device was not remembered and his next call said
// "serial is required". A principal keeps at most --sessions-per-principal entries: alice's
// fourth session (bound 3) drops her oldest, whose next call without serial says its selection
// was forgotten and why; bob's selection, made before all of hers, is still his.
func TestSessionsPerPrincipalDropsTheOldestOfThatPrincipalOnly(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 3, Quiet: true})
	pol, err := mcp.ParsePolicy([]byte(sessionsPolicy), t.TempDir())
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	g := mcp.New(f.Gateway().Client, slog.New(slog.DiscardHandler), mcp.NewMetrics(reg),
		mcp.Options{Policy: pol, Limits: mcp.Limits{SessionsPerPrincipal: 3}})
	t.Cleanup(g.Close)
	hs := httptest.NewServer(g.Handler())
	t.Cleanup(hs.Close)

	bob := tokenSessionClient(t, hs.URL, "bob-agent", leaseBobToken)
	farmtest.MustCall(t, bob, "select_device", map[string]any{"serial": "n1-p3"})
	oldest := tokenSessionClient(t, hs.URL, "alice-agent", leaseAliceToken)
	farmtest.MustCall(t, oldest, "select_device", map[string]any{"serial": "n1-p1"})
	farmtest.MustCall(t, oldest, "screenshot", nil) // its selection serves while it is kept
	var later []*client.Client
	for range 3 { // each one's first request writes its client name: its entry
		c := tokenSessionClient(t, hs.URL, "alice-agent", leaseAliceToken)
		farmtest.MustCall(t, c, "list_available_devices", nil)
		later = append(later, c)
	}

	res := farmtest.Call(t, oldest, "screenshot", nil)
	require.True(t, res.IsError, "alice's oldest session still has its selection: %s", farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), `this session's device selection was forgotten: principal "alice" opened more than 3 sessions`)
	assert.Contains(t, farmtest.Text(res), "call select_device again")
	farmtest.MustCall(t, bob, "screenshot", nil) // his selection is remembered
	farmtest.MustCall(t, later[0], "list_available_devices", nil)
	assert.Equal(t, 1.0, evictedCount(t, reg, "alice"))
	assert.Equal(t, 0.0, evictedCount(t, reg, "bob"))

	sd, ok := f.Gateway().Client.SessionDevice(t.Context(), broker.PrincipalSessionKey("bob", bob.GetSessionId()))
	assert.True(t, ok && sd.Serial == "n1-p3", "bob's entry under his principal: %+v", sd)
}

// A session's entry under its id alone (Corral before principal keys, or a gateway of that
// version during a roll) is still its selection, and seeds the new entry on its next write.
func TestSessionEntryUnderItsIdAloneIsStillRead(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Quiet: true})
	c := f.ClientWithProtocol("older-gateway-session", mcpgo.LATEST_LEGACY_PROTOCOL_VERSION)
	id := c.GetSessionId()
	require.NotEmpty(t, id)
	require.NoError(t, f.Gateway().Client.UpdateSessionDevice(t.Context(), id, func(d *broker.SessionDefault) bool {
		d.Serial, d.Platform = "n1-p2", "android"
		return true
	}))
	// The entry its initialize wrote under its principal goes, as if an older gateway served it.
	nc, err := nats.Connect(f.URL)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	kv, err := js.KeyValue(t.Context(), broker.SessionBucket)
	require.NoError(t, err)
	require.NoError(t, kv.Delete(t.Context(), broker.PrincipalSessionKey(broker.Anonymous, id)))
	farmtest.MustCall(t, c, "screenshot", nil)                                   // on n1-p2, the old entry's selection
	farmtest.MustCall(t, c, "acquire_device", map[string]any{"serial": "n1-p1"}) // writes the session's entry
	sd, ok := f.Gateway().Client.SessionDevice(t.Context(), broker.PrincipalSessionKey(broker.Anonymous, id))
	assert.True(t, ok && sd.Serial == "n1-p2" && len(sd.Acquired) == 1, "the new entry, seeded from the old: %+v", sd)
}

// tokenSessionClient is a client of principal token in a protocol revision with sessions.
func tokenSessionClient(t *testing.T, base, name, token string) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(base+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	require.NoError(t, c.Start(t.Context()))
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: name, Version: "test"}
	init.Params.ProtocolVersion = mcpgo.LATEST_LEGACY_PROTOCOL_VERSION
	_, err = c.Initialize(t.Context(), init)
	require.NoError(t, err)
	require.NotEmpty(t, c.GetSessionId())
	return c
}

// evictedCount is corral_gateway_sessions_evicted_total{principal} in reg.
func evictedCount(t *testing.T, reg prometheus.Gatherer, principal string) float64 {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != "corral_gateway_sessions_evicted_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "principal" && l.GetValue() == principal {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return -1
}
