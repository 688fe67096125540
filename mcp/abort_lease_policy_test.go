package mcp_test

import (
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// Tokens of leasePolicy's principals: alice may use the simulated phones, bob none of them.
const (
	leaseAliceToken = "alice-token-0123456789"
	leaseBobToken   = "bob-token-0123456789ab"
	leasePolicy     = `principals:
  - name: alice
    token: ` + leaseAliceToken + `
    tags: [sim]
  - name: bob
    token: ` + leaseBobToken + `
    tags: [pool-b]
`
)

// bobDenied is what bob is told for any handle that is not his.
const bobDenied = `abort_task refused (denied): denied by policy: principal "bob" may not abort under this lease: no lease or lease group it holds now has this handle ` +
	`(rule: abort_task by lease aborts only under the caller's own leases); list_leases shows its leases`

// Under a policy, bob's abort_task with alice's lease handle, or her group's, while her tasks
// run under them, was told "No task is currently running on the lease's device." (false: the
// nodes left a device outside bob's tags alone), while a bogus handle got stale_lease, so bob
// learnt which handles are held. Both are refused now in the same words, her tasks run on,
// and alice aborts under her own. bob's release_device of her group reads as a bogus group
// handle.
func TestAbortUnderAnotherPrincipalsLeaseReadsAsABogusHandle(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 3, Quiet: true})
	pol, err := mcp.ParsePolicy([]byte(leasePolicy), t.TempDir())
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	g := mcp.New(f.Gateway().Client, slog.New(slog.DiscardHandler), mcp.NewMetrics(reg), mcp.Options{Policy: pol})
	t.Cleanup(g.Close)
	hs := httptest.NewServer(g.Handler())
	t.Cleanup(hs.Close)
	alice, bob := tokenClient(t, hs.URL, "alice-agent", leaseAliceToken), tokenClient(t, hs.URL, "bob-agent", leaseBobToken)

	var one mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, alice, "acquire_device", map[string]any{"serial": "n1-p1"}), &one)
	grp := acquireGroup(t, alice, map[string]any{"count": 2})
	single, group := one.Lease.Handle, grp.Handle
	member := grp.Members[0].Serial
	slept := farmtest.Go(t, alice, "sleep", map[string]any{"serial": "n1-p1", "lease": single, "seconds": 60})
	sleptInGroup := farmtest.Go(t, alice, "sleep", map[string]any{"serial": member, "lease": group, "seconds": 60})
	for _, serial := range []string{"n1-p1", member} {
		farmtest.Eventually(t, 20*time.Second, func() bool {
			d, _ := f.Gateway().Client.Device(serial)
			return d.Task != nil && d.Task.Tool == "sleep"
		}, "alice's sleep running on %s", serial)
	}

	denied := deniedCount(t, reg, "holder")
	for _, h := range []string{single, group, bogus(single), bogus(group)} {
		res := farmtest.Call(t, bob, "abort_task", map[string]any{"lease": h})
		assert.Equal(t, bobDenied, wantRefused(t, res), "bob's abort_task under a handle not his")
	}
	assert.Equal(t, denied+4, deniedCount(t, reg, "holder"), "bob's refusals are not counted as policy denials")

	// Her group's handle in bob's release_device reads as a bogus group handle, word for word
	// (a denial named the group and told it was live); counted. (With a serial bob may not use,
	// any handle is denied for the device.)
	denied = deniedCount(t, reg, "holder")
	bogusText := farmtest.Text(farmtest.Call(t, bob, "release_device", map[string]any{"lease": bogus(group)}))
	assert.Contains(t, bogusText, "no lease group has this handle")
	text := farmtest.Text(farmtest.Call(t, bob, "release_device", map[string]any{"lease": group}))
	assert.Equal(t, bogusText, text, "bob's release_device of alice's group")
	assert.NotContains(t, text, grp.ID)
	assert.Equal(t, denied+1, deniedCount(t, reg, "holder"), "bob's hidden refusal is counted")
	for _, a := range []<-chan farmtest.Answer{slept, sleptInGroup} {
		select {
		case r := <-a:
			t.Fatalf("alice's task ended after bob's refused aborts: %s", farmtest.Text(r.Get(t)))
		default:
		}
	}

	for _, h := range []string{single, group} {
		var out mcp.AbortResult
		farmtest.Structured(t, farmtest.MustCall(t, alice, "abort_task", map[string]any{"lease": h}), &out)
		assert.Len(t, out.Aborted, 1, "alice aborting under her own lease: %s", out.Message)
	}
	assert.Contains(t, farmtest.Text((<-slept).Get(t)), "aborted")
	assert.Contains(t, farmtest.Text((<-sleptInGroup).Get(t)), "aborted")
}

// bogus is a handle of h's kind and length that no lease has.
func bogus(h string) string {
	b := []byte(h)
	for i := len(b) - 6; i < len(b); i++ {
		if b[i] == 'a' {
			b[i] = 'b'
		} else {
			b[i] = 'a'
		}
	}
	return string(b)
}
