package mcp_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// unreadGroups is a test farm's real client whose next reads of a lease group fail, as a
// groups bucket read that times out: fail says how many more will.
type unreadGroups struct {
	*broker.Client
	fail *atomic.Int32
}

func (u unreadGroups) LeaseGroup(ctx context.Context, handle string) (broker.LeaseGroup, error) {
	if u.fail.Add(-1) >= 0 {
		return broker.LeaseGroup{}, fmt.Errorf("read lease group: %w", nats.ErrTimeout)
	}
	return u.Client.LeaseGroup(ctx, handle)
}

// unreadPolicy is leasePolicy with carol, who may use alice's devices but holds none of her leases.
const (
	unreadCarolToken = "carol-token-0123456789"
	unreadPolicy     = leasePolicy + `  - name: carol
    token: ` + unreadCarolToken + `
    tags: [sim]
`
)

// Under a policy, abort_task by a lease group's handle checks that the group is the caller's.
// When that read failed the abort went on, and abortGroup read the group again: that read
// working, carol, holding alice's group handle, was told "device n1-p3 is not in lease group
// grp_… (its devices: …)", and bob (without a serial) "No task is currently running on the
// devices of lease group grp_…" (not even an error), where a healthy read refuses him without a word of the group. A failed check now
// refuses anyone, naming no group, and says to call again; alice's task runs on.
func TestAbortUnderAGroupUncheckedNamesNoGroup(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 3, Quiet: true})
	pol, err := mcp.ParsePolicy([]byte(unreadPolicy), t.TempDir())
	require.NoError(t, err)
	fail := new(atomic.Int32)
	g := mcp.New(unreadGroups{f.Gateway().Client, fail}, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()), mcp.Options{Policy: pol})
	t.Cleanup(g.Close)
	hs := httptest.NewServer(g.Handler())
	t.Cleanup(hs.Close)
	alice, bob := tokenClient(t, hs.URL, "alice-agent", leaseAliceToken), tokenClient(t, hs.URL, "bob-agent", leaseBobToken)
	carol := tokenClient(t, hs.URL, "carol-agent", unreadCarolToken)

	grp := acquireGroup(t, alice, map[string]any{"count": 2})
	member := grp.Members[0].Serial
	outside := ""
	for _, d := range f.Devices() {
		if !slices.Contains(serialsOf(grp), d.Serial) {
			outside = d.Serial
		}
	}
	require.NotEmpty(t, outside, "every phone is in the group")
	slept := farmtest.Go(t, alice, "sleep", map[string]any{"serial": member, "lease": grp.Handle, "seconds": 60})
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(member)
		return d.Task != nil && d.Task.Tool == "sleep"
	}, "alice's sleep running on %s", member)

	for _, c := range []struct {
		who  string
		cl   *client.Client
		args map[string]any
	}{{"carol", carol, map[string]any{"lease": grp.Handle, "serial": outside}}, {"bob", bob, map[string]any{"lease": grp.Handle}}} {
		fail.Store(1) // the check's read fails, the next one works
		text := wantRefused(t, farmtest.Call(t, c.cl, "abort_task", c.args), "could not check", "call abort_task again")
		assert.NotContains(t, text, grp.ID, "%s's abort_task %v, its check unread", c.who, c.args)
		for _, s := range serialsOf(grp) {
			assert.NotContains(t, text, s, "%s's abort_task %v, its check unread", c.who, c.args)
		}
	}
	fail.Store(0)
	assert.Equal(t, bobDenied, wantRefused(t, farmtest.Call(t, bob, "abort_task", map[string]any{"lease": grp.Handle})), "bob's abort_task, its check read")
	select {
	case r := <-slept:
		t.Fatalf("alice's task ended after bob's refused aborts: %s", farmtest.Text(r.Get(t)))
	default:
	}

	fail.Store(1)
	wantRefused(t, farmtest.Call(t, alice, "abort_task", map[string]any{"lease": grp.Handle}), "could not check", "call abort_task again")
	var out mcp.AbortResult
	farmtest.Structured(t, farmtest.MustCall(t, alice, "abort_task", map[string]any{"lease": grp.Handle}), &out)
	assert.Len(t, out.Aborted, 1, "alice aborting under her group again: %s", out.Message)
	assert.Contains(t, farmtest.Text((<-slept).Get(t)), "aborted")
}
