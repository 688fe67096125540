package mcp_test

import (
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/mcp"
)

// Under a policy, bob's release_device {"lease": H} with alice's handle of a device outside
// his rule was told 'denied by policy: principal "bob" may not use device n1-p1 …', while a
// bogus handle got stale_lease: bob learnt that the handle was live and which device it
// held. Her lease, held or ended, now reads to him as a bogus handle, byte for byte; the
// denial is counted and logged (never the handle), and her lease stays hers to release.
func TestReleaseOfAnotherPrincipalsLeaseReadsAsABogusHandle(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Quiet: true})
	pol, err := mcp.ParsePolicy([]byte(leasePolicy), t.TempDir())
	require.NoError(t, err)
	logs := &logtest.Buffer{}
	reg := prometheus.NewRegistry()
	g := mcp.New(f.Gateway().Client, slog.New(slog.NewTextHandler(logs, nil)), mcp.NewMetrics(reg), mcp.Options{Policy: pol})
	t.Cleanup(g.Close)
	hs := httptest.NewServer(g.Handler())
	t.Cleanup(hs.Close)
	alice, bob := tokenClient(t, hs.URL, "alice-agent", leaseAliceToken), tokenClient(t, hs.URL, "bob-agent", leaseBobToken)

	var held, ended mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, alice, "acquire_device", map[string]any{"serial": "n1-p1"}), &held)
	farmtest.Structured(t, farmtest.MustCall(t, alice, "acquire_device", map[string]any{"serial": "n1-p2"}), &ended)
	farmtest.MustCall(t, alice, "release_device", map[string]any{"lease": ended.Lease.Handle})

	want := wantRefused(t, farmtest.Call(t, bob, "release_device", map[string]any{"lease": bogus(held.Lease.Handle)}),
		"release_device refused (stale_lease): ")
	denied := deniedCount(t, reg, "holder")
	for name, h := range map[string]string{"held": held.Lease.Handle, "ended": ended.Lease.Handle} {
		got := wantRefused(t, farmtest.Call(t, bob, "release_device", map[string]any{"lease": h}))
		assert.Equal(t, want, got, "bob's release_device of alice's %s lease, beside a bogus handle's", name)
	}
	assert.Equal(t, denied+2, deniedCount(t, reg, "holder"), "bob's releases of alice's leases are not counted as policy denials")
	shown := logs.String()
	assert.Contains(t, shown, "reason=holder principal=bob tool=release_device serial=n1-p1", "the denial is not logged")
	assert.NotContains(t, shown, held.Lease.Handle, "the log shows a lease handle")

	res := farmtest.MustCall(t, alice, "release_device", map[string]any{"lease": held.Lease.Handle})
	assert.Contains(t, farmtest.Text(res), "Released device n1-p1.", "alice's lease did not stay hers")
}
