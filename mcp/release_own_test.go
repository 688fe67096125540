package mcp_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// Tokens of the narrowing policies.
const (
	narrowedLabToken   = "narrowed-lab-token-4e8a2c6f1b"
	narrowedOtherToken = "narrowed-other-token-9d3f7b1e5a"
)

// narrowingPolicy lets lab use the devices with tag labTag; other may use those tagged wifi.
func narrowingPolicy(t *testing.T, labTag string) *mcp.Policy {
	t.Helper()
	pol, err := mcp.ParsePolicy([]byte(`principals:
  - name: lab
    token: `+narrowedLabToken+`
    tags: [`+labTag+`]
  - name: other
    token: `+narrowedOtherToken+`
    tags: [wifi]
`), t.TempDir())
	require.NoError(t, err)
	return pol
}

// QA: a policy narrowed across a gateway restart (lab's tags no longer match its leased
// devices) left lab unable to release its leases ("denied by policy … may not use device")
// or see them in list_leases: they lingered until their TTL or an operator's --force. Lab now
// sees and releases its own leases (by lease and serial, by lease alone, a group's), and still
// may not use the devices; another principal neither sees nor releases them.
func TestNarrowedPolicyStillSeesAndReleasesOwnLeases(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 3, Quiet: true})
	f.WaitDevices(3, "online")
	before, after := policyGateway(t, f, narrowingPolicy(t, "sim")), policyGateway(t, f, narrowingPolicy(t, "wifi"))
	labBefore := tokenClient(t, before, "lab-agent", narrowedLabToken)
	lab, other := tokenClient(t, after, "lab-agent", narrowedLabToken), tokenClient(t, after, "other-agent", narrowedOtherToken)

	acquire := func(args map[string]any) mcp.AcquireResult {
		var got mcp.AcquireResult
		farmtest.Structured(t, farmtest.MustCall(t, labBefore, "acquire_device", args), &got)
		return got
	}
	held := func(serials ...string) { // ownsLease reads the registry, a moment behind the node
		farmtest.Eventually(t, 15*time.Second, func() bool {
			for _, s := range serials {
				if d, ok := f.Gateway().Client.Device(s); !ok || d.Holder == "" {
					return false
				}
			}
			return true
		}, "the registry shows %v held", serials)
	}
	one := acquire(map[string]any{"platform": "android"})
	serial := one.Lease.Serial
	grp := acquire(map[string]any{"count": 2})
	require.NotNil(t, grp.Group)
	members := serialsOf(*grp.Group)
	held(append([]string{serial}, members...)...)

	var mine mcp.LeasesResult
	farmtest.Structured(t, farmtest.MustCall(t, lab, "list_leases", map[string]any{}), &mine)
	var shown []string
	for _, l := range mine.Leases {
		shown = append(shown, l.Serial)
	}
	slices.Sort(shown)
	want := slices.Sorted(slices.Values(append([]string{serial}, members...)))
	assert.Equal(t, want, shown, "lab's own leases under the narrowed policy")
	if assert.Len(t, mine.Groups, 1, "lab's group") {
		assert.ElementsMatch(t, members, serialsOf(mine.Groups[0]), "the members of lab's group")
	}
	var others mcp.LeasesResult
	farmtest.Structured(t, farmtest.MustCall(t, other, "list_leases", map[string]any{}), &others)
	assert.Empty(t, others.Leases, "another principal sees lab's leases")

	// No rights gained: lab may not use the device, and other may not release lab's lease.
	wantRefused(t, farmtest.Call(t, lab, "get_screen_size", map[string]any{"serial": serial, "lease": one.Lease.Handle}),
		`denied by policy: principal "lab" may not use device `+serial)
	wantRefused(t, farmtest.Call(t, other, "release_device", map[string]any{"serial": serial, "lease": one.Lease.Handle}),
		`denied by policy: principal "other" may not use device `+serial)

	res := farmtest.Call(t, lab, "release_device", map[string]any{"serial": serial, "lease": one.Lease.Handle})
	require.False(t, res.IsError, "lab's release with serial: %s", farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "Released device "+serial)
	res = farmtest.Call(t, lab, "release_device", map[string]any{"lease": grp.Group.Handle})
	require.False(t, res.IsError, "lab's release of its group: %s", farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "Released group ")

	again := acquire(map[string]any{"serial": serial})
	held(serial)
	res = farmtest.Call(t, lab, "release_device", map[string]any{"lease": again.Lease.Handle})
	require.False(t, res.IsError, "lab's release by lease alone: %s", farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "Released device "+serial)
	farmtest.Eventually(t, 15*time.Second, func() bool {
		leases, err := f.Gateway().Client.Leases(t.Context())
		return err == nil && len(leases) == 0
	}, "no lease left held")
}
