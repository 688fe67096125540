package test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// A lease beyond max_devices is refused with what can help, the device to give back or a
// larger bound, never with advice to queue (waiting cannot help with a quota), and at once,
// whatever wait_seconds says.
func TestQuotaRefusalSaysWhatHelps(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 3, Quiet: true})
	const token = "team-8a9b0c1d2e3f405162738495"
	policyFile := filepath.Join(t.TempDir(), "policy.yaml")
	require.NoError(t, os.WriteFile(policyFile, []byte("principals:\n  - name: team\n    token: "+token+"\n    max_devices: 1\n"), 0o600))
	url, _ := authGateway(t, f, policyFile, 3)
	team, err := authClient(t, url, "team-client", token)
	require.NoError(t, err)
	held := acquire(t, team, args("serial", "n1-p1"))

	for _, a := range []map[string]any{args("serial", "n1-p2"), args(), args("wait_seconds", 5)} {
		start := time.Now()
		res := farmtest.Call(t, team, "acquire_device", a)
		text := farmtest.Text(res)
		require.True(t, res.IsError, "%v: leased beyond max_devices 1: %s", a, text)
		contains(t, text, "quota_exceeded", "team holds device n1-p1, the most its policy allows (max_devices 1)",
			"waiting does not help", "release_device n1-p1 first", "a larger max_devices")
		for _, wrong := range []string{"wait_seconds to queue", "queued for", "fewest waiters"} {
			assert.NotContains(t, text, wrong, "%v: the refusal advises waiting", a)
		}
		assert.NotContains(t, text, held.Lease.Handle)
		assert.Less(t, time.Since(start), 4*time.Second, "%v: waited for a device the quota refuses anyway", a)
	}
}

// acquire_device of a device the caller (same principal and client) holds already says so
// and how to use its lease, without the handle, as a tool call without the lease does; it
// neither advises queueing nor waits on itself. Another caller still hears who holds it.
func TestAcquireOfYourOwnDevice(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	c := f.Client("agent")
	held := acquire(t, c, args("serial", serial))

	for _, a := range []map[string]any{args("serial", serial), args("serial", serial, "wait_seconds", 5)} {
		start := time.Now()
		res := farmtest.Call(t, c, "acquire_device", a)
		text := farmtest.Text(res)
		require.True(t, res.IsError, "%v: %s", a, text)
		contains(t, text, "You hold it", "pass your lease")
		for _, wrong := range []string{"wait_seconds", "Held by"} {
			assert.NotContains(t, text, wrong, "%v: the caller is told to queue for its own device", a)
		}
		assert.NotContains(t, text, held.Lease.Handle)
		assert.Less(t, time.Since(start), 4*time.Second, "%v: waited on its own lease", a)
	}

	text := farmtest.Text(farmtest.Call(t, f.Client("other"), "acquire_device", args("serial", serial)))
	contains(t, text, "Held by anonymous (agent)", "Pass wait_seconds to queue")
	assert.NotContains(t, text, "You hold it")
}
