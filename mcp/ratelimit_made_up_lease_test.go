package mcp_test

import (
	"crypto/rand"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// Tokens of madeUpLeasePolicy.
const (
	holderToken  = "made-up-holder-token-2f8a6c4e1d"
	hammerToken  = "made-up-hammer-token-7b3d9e5a0c"
	madeUpPolicy = `principals:
  - name: holder
    token: ` + holderToken + `
  - name: hammer
    token: ` + hammerToken + `
`
)

// A caller that sends a new made-up lease handle at each call is rate limited like one that
// sends none: it once got a bucket per handle, so 8 threads of one token made 319 calls/s
// (limit 50/s), none limited, each writing a stale_lease task record. Its calls count against
// its principal, not the holder's: the holder's calls under its real lease still pass.
func TestMadeUpLeaseHandlesAreRateLimited(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	pol, err := mcp.ParsePolicy([]byte(madeUpPolicy), t.TempDir())
	require.NoError(t, err)
	const burst = 3 // and one token a minute: none comes back during the test
	g := mcp.New(f.Gateway().Client, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()),
		mcp.Options{Policy: pol, RateLimit: mcp.RateLimit{PerSecond: 1.0 / 60, Burst: burst}})
	t.Cleanup(g.Close)
	hs := httptest.NewServer(g.Handler())
	t.Cleanup(hs.Close)
	holder, hammer := tokenClient(t, hs.URL, "holder-agent", holderToken), tokenClient(t, hs.URL, "hammer-agent", hammerToken)

	var held mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, holder, "acquire_device", map[string]any{"serial": serial}), &held)

	const calls = 12
	limited := 0
	for range calls {
		res := farmtest.Call(t, hammer, "tap_xy", map[string]any{"serial": serial, "lease": "lease_" + rand.Text(), "x": 0.5, "y": 0.5})
		text := farmtest.Text(res)
		require.True(t, res.IsError, "a call under a made-up handle passed: %s", text)
		if strings.Contains(text, "rate limited: device "+serial) {
			limited++
		}
	}
	if limited != calls-burst {
		t.Fatalf("%d of %d calls under made-up lease handles were rate limited, want %d (all but the burst)", limited, calls, calls-burst)
	}

	res := farmtest.Call(t, holder, "tap_xy", map[string]any{"serial": serial, "lease": held.Lease.Handle, "x": 0.5, "y": 0.5})
	require.False(t, res.IsError, "the holder's call under its lease, after the made-up handles: %s", farmtest.Text(res))
}
