package mcp_test

import (
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
)

// taggedPhone is a simulated phone with tags of its own (a sim phone's are [sim]).
type taggedPhone struct {
	*sim.Phone
	tags []string
}

func (p taggedPhone) Info() device.Info {
	i := p.Phone.Info()
	i.Tags = p.tags
	return i
}

// groupPolicy is leasePolicy with an operator: alice may use [sim], bob [pool-b], carol any.
const groupPolicy = leasePolicy + `  - name: carol
    token: carol-token-0123456789a
    operator: true
`

// Under a policy, bob's tap_xy with alice's group handle and a device bob may use that is not
// in her group was refused 'device n1-p4 is not in lease group grp_… (its devices: n1-p1,
// n1-p2): pass one of their serials', naming her group and devices outside his rule. It now
// reads as a handle no group has, word for word, counted and logged; alice and an operator are
// still told why. abort_task already refuses any group handle not bob's in one set of words.
// A member bob may use still runs under her group's handle, as under her single lease's: a
// handle is a bearer secret.
func TestAnotherPrincipalsGroupWithADeviceNotInItReadsAsABogusHandle(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Quiet: true})
	f.AddDriver("n1", taggedPhone{sim.New("n1-p3"), []string{"sim", "pool-b"}}) // alice's and bob's
	f.AddDriver("n1", taggedPhone{sim.New("n1-p4"), []string{"pool-b"}})        // bob's only
	f.WaitDevices(4, broker.StateOnline)
	pol, err := mcp.ParsePolicy([]byte(groupPolicy), t.TempDir())
	require.NoError(t, err)
	logs := &logtest.Buffer{}
	reg := prometheus.NewRegistry()
	g := mcp.New(f.Gateway().Client, slog.New(slog.NewTextHandler(logs, nil)), mcp.NewMetrics(reg), mcp.Options{Policy: pol})
	t.Cleanup(g.Close)
	hs := httptest.NewServer(g.Handler())
	t.Cleanup(hs.Close)
	alice, bob := tokenClient(t, hs.URL, "alice-agent", leaseAliceToken), tokenClient(t, hs.URL, "bob-agent", leaseBobToken)
	carol := tokenClient(t, hs.URL, "carol-agent", "carol-token-0123456789a")
	tap := func(lease, serial string) map[string]any {
		return map[string]any{"lease": lease, "serial": serial, "x": 0.5, "y": 0.5}
	}

	// n1-p3 held apart, so that her group is n1-p1 and n1-p2, both outside bob's rule.
	var p3 mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, alice, "acquire_device", map[string]any{"serial": "n1-p3"}), &p3)
	grp := acquireGroup(t, alice, map[string]any{"count": 2})
	require.ElementsMatch(t, []string{"n1-p1", "n1-p2"}, serialsOf(grp))

	want := wantRefused(t, farmtest.Call(t, bob, "tap_xy", tap(bogus(grp.Handle), "n1-p4")), "refused (stale_lease)", "no lease group has this handle")
	denied := deniedCount(t, reg, "holder")
	got := wantRefused(t, farmtest.Call(t, bob, "tap_xy", tap(grp.Handle, "n1-p4")))
	assert.Equal(t, want, got, "bob's tap_xy with alice's group handle, beside a bogus group handle's")
	for _, secret := range []string{grp.ID, "n1-p1", "n1-p2"} {
		assert.NotContains(t, got, secret)
	}
	assert.Equal(t, denied+1, deniedCount(t, reg, "holder"), "bob's hidden refusal is not counted")
	shown := logs.String()
	assert.Contains(t, shown, "reason=holder principal=bob tool=tap_xy serial=n1-p1", "the hidden refusal is not logged")
	assert.NotContains(t, shown, grp.Handle, "the log shows the group's handle")

	// abort_task: any group handle not bob's, in the same words (abort_lease_policy.go).
	abortWant := wantRefused(t, farmtest.Call(t, bob, "abort_task", map[string]any{"lease": bogus(grp.Handle), "serial": "n1-p4"}))
	abortGot := wantRefused(t, farmtest.Call(t, bob, "abort_task", map[string]any{"lease": grp.Handle, "serial": "n1-p4"}))
	assert.Equal(t, abortWant, abortGot, "bob's abort_task with alice's group handle")
	assert.NotContains(t, abortGot, grp.ID)

	// Its principal and an operator are told why.
	helpful := "device n1-p3 is not in lease group " + grp.ID + " (its devices: "
	wantRefused(t, farmtest.Call(t, alice, "tap_xy", tap(grp.Handle, "n1-p3")), helpful)
	wantRefused(t, farmtest.Call(t, carol, "tap_xy", tap(grp.Handle, "n1-p4")), "device n1-p4 is not in lease group "+grp.ID+" (its devices: ")

	// A group of n1-p1 and n1-p3: bob taps n1-p3, which he may use, under its handle (as under
	// a single lease's of alice's); a device not in it still reads as a bogus handle (n1-p1).
	farmtest.MustCall(t, alice, "release_device", map[string]any{"lease": grp.Handle})
	farmtest.MustCall(t, alice, "release_device", map[string]any{"lease": p3.Lease.Handle})
	farmtest.MustCall(t, alice, "acquire_device", map[string]any{"serial": "n1-p2"})
	shared := acquireGroup(t, alice, map[string]any{"count": 2})
	require.ElementsMatch(t, []string{"n1-p1", "n1-p3"}, serialsOf(shared))
	farmtest.MustCall(t, bob, "tap_xy", tap(shared.Handle, "n1-p3"))
	assert.Equal(t, want, wantRefused(t, farmtest.Call(t, bob, "tap_xy", tap(shared.Handle, "n1-p4"))),
		"bob's tap_xy with the handle of alice's group he may use a device of")
}
