package test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes/sim"
)

// ringSize devices r0…r9 stand in a ring across two nodes (r0-r4 on n1, r5-r9 on n2); pair-k
// is the tag of rk and its neighbour r(k+1): asking for count 2 with tag pair-k asks for an
// overlapping pair, as dining philosophers ask for forks. pair-9 spans both nodes.
const ringSize = 10

func startRing(t *testing.T) *farmtest.Farm {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 1})
	for i := range ringSize {
		node := "n1"
		if i >= ringSize/2 {
			node = "n2"
		}
		f.AddDriver(node, taggedPhone{Phone: sim.New(fmt.Sprintf("r%d", i)),
			tags: []string{"ring", fmt.Sprintf("pair-%d", i), fmt.Sprintf("pair-%d", (i+ringSize-1)%ringSize)}})
	}
	f.WaitDevices(2+ringSize, broker.StateOnline)
	return f
}

// pairOf is the serials pair-k selects.
func pairOf(k int) []string {
	return []string{fmt.Sprintf("r%d", k), fmt.Sprintf("r%d", (k+1)%ringSize)}
}

// grant is a group a caller held: from the moment its answer came to the moment its release
// was sent (inside the time the nodes really held it).
type grant struct {
	caller   string
	members  []mcp.MemberInfo
	from, to time.Time
}

// refusal is an acquire_device that did not grant: its answer and how long it took.
type refusal struct {
	caller, text string
	took         time.Duration
}

// contention runs callers that each ask rounds times for a pair (or, one in five, any three
// devices of the ring) with wait, hold the group for one sleep_ms of hold on one member after
// a call on each member with the group's handle, and release it by the handle. It returns the
// grants and the refusals.

func contention(t *testing.T, f *farmtest.Farm, callers, rounds int, wait float64, hold int) ([]grant, []refusal) {
	clients := make([]*client.Client, callers)
	for i := range clients {
		clients[i] = f.Client(fmt.Sprintf("caller-%02d", i))
	}
	for _, c := range clients {
		farmtest.MustCall(t, c, "list_leases", nil) // the client has its tools/list before it is timed
	}
	var mu sync.Mutex
	var grants []grant
	var refusals []refusal
	var errs []error
	var wg sync.WaitGroup
	for i, c := range clients {
		name := fmt.Sprintf("caller-%02d", i)
		wg.Go(func() {
			for r := range rounds {
				args := map[string]any{"count": 2, "tags": []any{fmt.Sprintf("pair-%d", (i+r)%ringSize)}, "wait_seconds": wait}
				if i%5 == 0 {
					args = map[string]any{"count": 3, "tags": []any{"ring"}, "wait_seconds": wait}
				}
				start := time.Now()
				res, err := farmtest.TryCall(t, c, "acquire_device", args)
				took := time.Since(start)
				if err == nil && res.IsError {
					mu.Lock()
					refusals = append(refusals, refusal{name, farmtest.Text(res), took})
					mu.Unlock()
					continue
				}
				var out mcp.AcquireResult
				if err == nil {
					err = farmtest.Decode(res, &out)
				}
				if err == nil {
					err = useAndRelease(t, c, args, out.Group, hold, func(from, to time.Time) {
						mu.Lock()
						grants = append(grants, grant{name, out.Group.Members, from, to})
						mu.Unlock()
					})
				}
				if err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("%s round %d: %w", name, r, err))
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	require.Empty(t, errs)
	return grants, refusals
}

// useAndRelease checks a granted group, uses each member with its handle, and releases it.
func useAndRelease(t *testing.T, c *client.Client, args map[string]any, g *mcp.GroupInfo, hold int, held func(from, to time.Time)) error {
	from := time.Now()
	if g == nil {
		return fmt.Errorf("granted without a group")
	}
	want := args["count"].(int)
	var serials []string
	for _, m := range g.Members {
		serials = append(serials, m.Serial)
	}
	if len(serials) != want || len(slices.Compact(slices.Sorted(slices.Values(serials)))) != want {
		return fmt.Errorf("partial grant: asked %d devices, got %v", want, serials)
	}
	if tag := args["tags"].([]any)[0].(string); strings.HasPrefix(tag, "pair-") {
		var k int
		_, _ = fmt.Sscanf(tag, "pair-%d", &k)
		if !slices.Equal(slices.Sorted(slices.Values(serials)), slices.Sorted(slices.Values(pairOf(k)))) {
			return fmt.Errorf("%s gave %v, want %v", tag, serials, pairOf(k))
		}
	}
	for _, s := range serials {
		if _, err := mustOK(t, c, "get_screen_size", map[string]any{"serial": s, "lease": g.Handle}); err != nil {
			return err
		}
	}
	if _, err := mustOK(t, c, "sleep_ms", map[string]any{"serial": serials[0], "lease": g.Handle, "milliseconds": hold}); err != nil {
		return err
	}
	to := time.Now()
	held(from, to)
	text, err := mustOK(t, c, "release_device", map[string]any{"lease": g.Handle})
	if err == nil && !strings.Contains(text, "Released group "+g.ID) {
		err = fmt.Errorf("release_device: %s", text)
	}
	return err
}

func mustOK(t *testing.T, c *client.Client, tool string, args map[string]any) (string, error) {
	res, err := farmtest.TryCall(t, c, tool, args)
	if err != nil {
		return "", err
	}
	if res.IsError {
		return "", fmt.Errorf("%s %v: %s", tool, args, farmtest.Text(res))
	}
	return farmtest.Text(res), nil
}

// checkExclusive fails the test when two grants held a device at once, or one device epoch was
// granted twice.
func checkExclusive(t *testing.T, grants []grant) {
	t.Helper()
	type hold struct {
		grant
		epoch uint64
	}
	bySerial := map[string][]hold{}
	for _, g := range grants {
		for _, m := range g.members {
			bySerial[m.Serial] = append(bySerial[m.Serial], hold{g, m.Epoch})
		}
	}
	for serial, hs := range bySerial {
		slices.SortFunc(hs, func(a, b hold) int { return a.from.Compare(b.from) })
		for i := 1; i < len(hs); i++ {
			if hs[i].from.Before(hs[i-1].to) {
				t.Errorf("%s held by %s (epoch %d) and %s (epoch %d) at once", serial, hs[i-1].caller, hs[i-1].epoch, hs[i].caller, hs[i].epoch)
			}
			if hs[i].epoch <= hs[i-1].epoch {
				t.Errorf("%s: epoch %d granted to %s after epoch %d", serial, hs[i].epoch, hs[i].caller, hs[i-1].epoch)
			}
		}
	}
}

// checkLeaseRecord reads the nodes' own record of the ring's leases (the event stream) once it
// has caught up, and fails the test unless every device went granted, ended, granted, ended…
// with growing epochs, every grant of the callers is there under its caller, and nothing is
// held at the end.
func checkLeaseRecord(t *testing.T, f *farmtest.Farm, grants []grant) {
	t.Helper()
	nc, err := nats.Connect(f.URL)
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	granted := map[string]string{} // serial/epoch → holder
	farmtest.Eventually(t, 20*time.Second, func() bool {
		evs := leaseEvents(t, js)
		granted = map[string]string{}
		for serial, es := range evs {
			for i, e := range es {
				if (i%2 == 0) != (e.What == "granted") || i%2 == 1 && e.Epoch != es[i-1].Epoch || i >= 2 && e.Epoch <= es[i-2].Epoch {
					t.Fatalf("%s: lease events out of turn at %d: %+v", serial, i, es)
				}
				if e.What == "granted" {
					granted[fmt.Sprintf("%s/%d", serial, e.Epoch)] = e.Holder
				}
			}
			if len(es)%2 == 1 {
				return false // a lease still held, or its end not recorded yet
			}
		}
		return true
	}, "the event stream records every lease of the ring ended")
	for _, g := range grants {
		for _, m := range g.members {
			h, ok := granted[fmt.Sprintf("%s/%d", m.Serial, m.Epoch)]
			assert.True(t, ok, "no record of %s's grant of %s epoch %d", g.caller, m.Serial, m.Epoch)
			assert.Contains(t, h, g.caller, "%s epoch %d", m.Serial, m.Epoch)
		}
	}
	leases, err := f.Gateway().Client.Leases(t.Context())
	require.NoError(t, err)
	assert.Empty(t, leases, "leases left held")
}

// leaseEvents reads the ring's lease events from the stream, by serial in order.
func leaseEvents(t *testing.T, js jetstream.JetStream) map[string][]broker.Event {
	t.Helper()
	cons, err := js.OrderedConsumer(t.Context(), broker.EventStream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{broker.Prefix + ".events.lease.>"}})
	require.NoError(t, err)
	info, err := cons.Info(t.Context())
	require.NoError(t, err)
	out := map[string][]broker.Event{}
	for left := info.NumPending; left > 0; {
		batch, err := cons.Fetch(int(min(left, 500)), jetstream.FetchMaxWait(5*time.Second))
		require.NoError(t, err)
		for m := range batch.Messages() {
			left--
			var e broker.Event
			require.NoError(t, json.Unmarshal(m.Data(), &e))
			if strings.HasPrefix(e.Serial, "r") {
				out[e.Serial] = append(out[e.Serial], e)
			}
		}
		require.NoError(t, batch.Error())
	}
	return out
}

// Fifty callers (real MCP clients) contend for overlapping pairs of a ring of ten devices on two
// nodes, and some for any three of them, with a wait long enough to be served: every one is
// served every time (no deadlock holds anyone until their wait ends), every grant has exactly
// the devices asked for, no device is held by two callers at once, and the nodes' own lease
// records agree.
func TestGroupLeasesContendedAllServed(t *testing.T) {
	f := startRing(t)
	grants, refusals := contention(t, f, 50, 3, 60, 5)
	for _, r := range refusals {
		t.Errorf("%s refused after %s: %s", r.caller, r.took, r.text)
	}
	assert.Len(t, grants, 150)
	checkExclusive(t, grants)
	checkLeaseRecord(t, f, grants)
}

// With a short wait and long holds, callers are refused: each within its wait, told why (which
// device, who holds it, how many wait; or which device the wait ran out before), holding
// nothing afterwards.
func TestGroupLeasesContendedToldWhyWithinWait(t *testing.T) {
	f := startRing(t)
	const wait = 0.2
	grants, refusals := contention(t, f, 50, 2, wait, 150)
	require.NotEmpty(t, refusals, "no caller was refused: the test proves nothing")
	require.NotEmpty(t, grants)
	var longest time.Duration
	for _, r := range refusals {
		longest = max(longest, r.took)
		assert.Contains(t, r.text, "Nothing is held", r.caller)
		// Which device and who holds it, or, for a device the wait ran out before reaching (it
		// was never asked), which one.
		assert.Regexp(t, `r\d (wait_expired|busy) \(.*\)\. Held by anonymous \(caller-\d\d\) until .*; \d+ waiting|r\d; wait_seconds ran out before its turn to be waited for`, r.text, r.caller)
		// The slack is for 50 clients' HTTP under -race on a loaded machine (3 s was not
		// enough at load 13: refusals took up to 4.6 s); a caller held past its wait by another's
		// lease waits for its 5 min TTL, far beyond it. How exactly the wait is shared is
		// TestGroupLeaseWaitIsShared's.
		assert.Less(t, r.took, time.Duration(wait*float64(time.Second))+15*time.Second, "%s answered long past its wait: %s", r.caller, r.text)
	}
	t.Logf("%d grants, %d refusals, the slowest refusal in %s (wait %gs)", len(grants), len(refusals), longest, wait)
	checkExclusive(t, grants)
	checkLeaseRecord(t, f, grants)
}

// A group counts towards its principal's max_devices: a count beyond it is refused before any
// device is asked for, and a group the principal's other leases leave no room for takes
// nothing.
func TestGroupLeaseWithinMaxDevices(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 2, Quiet: true})
	const token = "team-3a4b5c6d7e8f90a1b2c3d4e5"
	policyFile := filepath.Join(t.TempDir(), "policy.yaml")
	require.NoError(t, os.WriteFile(policyFile, []byte("principals:\n  - name: team\n    token: "+token+"\n    max_devices: 2\n"), 0o600))
	url, _ := authGateway(t, f, policyFile, 4)
	team, err := authClient(t, url, "team-client", token)
	require.NoError(t, err)
	gw := f.Gateway().Client

	text := farmtest.Text(farmtest.Call(t, team, "acquire_device", map[string]any{"count": 3}))
	assert.Contains(t, text, "count 3 is more devices than team may hold at once (max_devices 2)")

	var one mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, team, "acquire_device", map[string]any{"serial": "n1-p1"}), &one)
	start := time.Now()
	res := farmtest.Call(t, team, "acquire_device", map[string]any{"count": 2, "wait_seconds": 5})
	require.True(t, res.IsError, farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "max_devices 2")
	assert.Contains(t, farmtest.Text(res), "release devices you hold first")
	assert.Less(t, time.Since(start), 4*time.Second, "waited for devices the quota would refuse anyway")
	leases, err := gw.Leases(t.Context())
	require.NoError(t, err)
	assert.Len(t, leases, 1, "the refused group left devices held")

	farmtest.MustCall(t, team, "release_device", map[string]any{"lease": one.Lease.Handle})
	var grp mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, team, "acquire_device", map[string]any{"count": 2}), &grp)
	require.NotNil(t, grp.Group)
	farmtest.MustCall(t, team, "get_screen_size", map[string]any{"serial": grp.Group.Members[1].Serial, "lease": grp.Group.Handle})
	farmtest.MustCall(t, team, "release_device", map[string]any{"lease": grp.Group.Handle})
}
