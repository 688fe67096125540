package mcp_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// Protocol revisions: the earlier has protocol sessions, the later none.
const (
	withSession    = "2025-06-18"
	withoutSession = "2026-07-28"
)

// nodeWords are the node's words for a caller that passed the lease itself (actors/stale.go):
// wrong for a caller that passed a group's lease, or none (its selection's went with its call).
var nodeWords = []string{"you passed", "acquire_device again", "list_leases shows yours"}

// A stale_lease refusal of a lease the caller knows by another name is worded by the gateway
// from the node's fields, not from the node's words: a group member's ("its lease of it"), a
// selection's without a session (forgotten) and in one (the session keeps the device, without
// its lease: the next call runs without one). No refusal quotes a handle.
func TestStaleRefusalsWordedFromTheNodesFields(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 1, Quiet: true})
	revoke := func(serial string) {
		t.Helper()
		ans, err := f.Gateway().Client.Release(t.Context(), broker.ReleaseRequest{V: broker.WireVersion, Serial: serial, Force: true, By: "ops-oncall"})
		require.NoError(t, err)
		require.True(t, ans.OK, "forced release of %s: %+v", serial, ans)
	}
	noNodeWords := func(text string, handles ...string) {
		t.Helper()
		for _, w := range nodeWords {
			assert.NotContains(t, text, w)
		}
		assert.NotRegexp(t, `\blease_`, text, "the refusal quotes a lease handle")
		for _, h := range handles {
			assert.NotContains(t, text, h[len(h)-8:])
		}
	}

	t.Run("group member", func(t *testing.T) {
		alice := f.Client("alice")
		grp := acquireGroup(t, alice, map[string]any{"count": 2})
		revoke("n2-p1")
		text := wantRefused(t, farmtest.Call(t, alice, "get_screen_size", map[string]any{"serial": "n2-p1", "lease": grp.Handle}),
			"(stale_lease)", "lease group "+grp.ID+" no longer holds n2-p1: its lease of it was revoked at 20",
			"(forced release by ops-oncall); n2-p1 is free now (release_device with the group's lease frees the rest of the group)")
		noNodeWords(text, grp.Handle)
		farmtest.MustCall(t, alice, "release_device", map[string]any{"lease": grp.Handle})
	})

	t.Run("selection without session", func(t *testing.T) {
		c := f.ClientWithProtocol("hrp", withoutSession)
		var sel mcp.SelectDeviceResult
		farmtest.Structured(t, farmtest.MustCall(t, c, "select_device", map[string]any{"serial": "n1-p1"}), &sel)
		revoke("n1-p1")
		text := wantRefused(t, farmtest.Call(t, c, "tap_xy", map[string]any{"serial": "n1-p1", "x": 0.5, "y": 0.3}),
			"(stale_lease)", "the lease select_device took for n1-p1 was revoked at 20",
			"(forced release by ops-oncall); n1-p1 is free now. The selection is forgotten: call select_device again to hold n1-p1")
		noNodeWords(text, sel.Lease.Handle)
		farmtest.MustCall(t, c, "tap_xy", map[string]any{"serial": "n1-p1", "x": 0.5, "y": 0.3}) // without a lease now
	})

	t.Run("selection in a session", func(t *testing.T) {
		c := f.ClientWithProtocol("agent", withSession)
		var sel mcp.SelectDeviceResult
		farmtest.Structured(t, farmtest.MustCall(t, c, "select_device", map[string]any{"serial": "n1-p1"}), &sel)
		revoke("n1-p1")
		text := wantRefused(t, farmtest.Call(t, c, "tap_xy", map[string]any{"x": 0.5, "y": 0.3}),
			"(stale_lease)", "the lease select_device took for n1-p1 was revoked at 20",
			"(forced release by ops-oncall); n1-p1 is free now. This session's selection keeps n1-p1 without a lease: call select_device again to hold it")
		noNodeWords(text, sel.Lease.Handle)
		farmtest.MustCall(t, c, "tap_xy", map[string]any{"x": 0.5, "y": 0.3}) // on n1-p1, without a lease now
		assert.Nil(t, leaseOf(t, f, "n1-p1"), "a call after the refusal took a lease")
	})
}

// olderNodes is a farm whose nodes answer as nodes did before broker.LeaseEnded: a
// stale_lease refusal in words only.
type olderNodes struct{ *broker.Client }

func (o olderNodes) Run(ctx context.Context, req broker.TaskRequest, progress func(broker.Progress)) (broker.TaskResult, error) {
	res, err := o.Client.Run(ctx, req, progress)
	res.LeaseEnded = nil
	return res, err
}

// olderNodesClient serves f's farm, as older nodes answer, through a gateway of its own, and
// returns a client of it speaking protocol revision version.
func olderNodesClient(t *testing.T, f *farmtest.Farm, name, version string) *client.Client {
	t.Helper()
	g := mcp.New(olderNodes{f.Gateway().Client}, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()), mcp.Options{})
	hs := httptest.NewServer(g.Handler())
	t.Cleanup(g.Close)
	t.Cleanup(hs.Close)
	c, err := client.NewStreamableHttpClient(hs.URL + "/mcp")
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	require.NoError(t, c.Start(ctx))
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: name, Version: "test"}
	init.Params.ProtocolVersion = version
	_, err = c.Initialize(ctx, init)
	require.NoError(t, err)
	return c
}

// A node older than the fields still gets a readable refusal: its own words, whole, in the
// gateway's frame (the group that no longer holds the device; the selection and what to do).
func TestStaleRefusalOfAnOlderNodeKeepsItsWords(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 1, Quiet: true})
	revoke := func(serial string) {
		t.Helper()
		ans, err := f.Gateway().Client.Release(t.Context(), broker.ReleaseRequest{V: broker.WireVersion, Serial: serial, Force: true, By: "ops-oncall"})
		require.NoError(t, err)
		require.True(t, ans.OK, "forced release of %s: %+v", serial, ans)
	}

	alice := olderNodesClient(t, f, "alice", withoutSession)
	grp := acquireGroup(t, alice, map[string]any{"count": 2})
	revoke("n2-p1")
	text := wantRefused(t, farmtest.Call(t, alice, "get_screen_size", map[string]any{"serial": "n2-p1", "lease": grp.Handle}),
		"(stale_lease)", "lease group "+grp.ID+" no longer holds n2-p1: the lease you passed for n2-p1 was revoked at 20",
		"n2-p1 is free now", "frees the rest of the group")
	assert.NotRegexp(t, `\blease_`, text, "the refusal quotes a lease handle")
	farmtest.MustCall(t, alice, "release_device", map[string]any{"lease": grp.Handle})

	hrp := olderNodesClient(t, f, "hrp", withoutSession)
	farmtest.MustCall(t, hrp, "select_device", map[string]any{"serial": "n1-p1"})
	revoke("n1-p1")
	text = wantRefused(t, farmtest.Call(t, hrp, "tap_xy", map[string]any{"serial": "n1-p1", "x": 0.5, "y": 0.3}),
		"(stale_lease)", "the lease select_device took for n1-p1 was refused: the lease you passed for n1-p1 was revoked at 20",
		"n1-p1 is free now", "The selection is forgotten: call select_device again to hold n1-p1")
	assert.NotRegexp(t, `\blease_`, text, "the refusal quotes a lease handle")
}
