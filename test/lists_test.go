package test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/ios"
	"github.com/corral-farm/corral/nodes/sim"
)

// listPage is a page of list_available_devices or list_leases.
type listPage struct {
	mcp.DeviceListResult
	Leases []mcp.LeaseInfo `json:"leases"`
}

// resultBytes is what the gateway's cap counts of a result: structured content as JSON plus
// the text of its text items.
func resultBytes(t *testing.T, res *mcpgo.CallToolResult) int {
	t.Helper()
	n := 0
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		n += len(b)
	}
	for _, c := range res.Content {
		if tc, ok := mcpgo.AsTextContent(c); ok {
			n += len(tc.Text)
		}
	}
	return n
}

// pageOf calls a list tool and decodes its page, failing the test if the result is over the cap.
func pageOf(t *testing.T, c *client.Client, tool string, a map[string]any) listPage {
	t.Helper()
	res := farmtest.MustCall(t, c, tool, a)
	require.LessOrEqual(t, resultBytes(t, res), mcp.MaxResultBytes, "%s %v", tool, a)
	var p listPage
	farmtest.Structured(t, res, &p)
	return p
}

// pageThrough pages a list tool with a from the first page to the last and returns the keys
// listed, in order, and the pages; between runs between two pages (may be nil).
func pageThrough(t *testing.T, c *client.Client, tool string, a map[string]any, between func(page int)) ([]string, []listPage) {
	t.Helper()
	a = withArgs(a, nil) // a copy: the cursor goes in it
	var keys []string
	var pages []listPage
	for {
		p := pageOf(t, c, tool, a)
		pages = append(pages, p)
		for _, d := range p.Devices {
			keys = append(keys, d.Serial)
		}
		for _, l := range p.Leases {
			keys = append(keys, l.Serial)
		}
		if p.NextCursor == "" {
			return keys, pages
		}
		require.Less(t, len(pages), 20_000, "paging never ends")
		a["cursor"] = p.NextCursor
		if between != nil {
			between(len(pages))
		}
	}
}

// labPhone is a simulated phone with its own model and tags, as a lab's phones with SIM cards.
type labPhone struct {
	*sim.Phone
}

func (p labPhone) Info() device.Info {
	i := p.Phone.Info()
	i.Model, i.Tags = "Lab Phone", []string{"sim", "lab", "sim-card"}
	return i
}

// Every filter of list_available_devices and list_leases on a real farm (simulated Android
// phones, lab phones with tags, simulated iPhones through the iOS driver), the summary's
// counts, a tampered cursor, and `corral devices` / `corral leases` with the same filters as flags.
func TestListsFilterARealFarm(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 3, Platforms: []device.Platform{android.Platform(), ios.Platform()}})
	for _, s := range []string{"n1-lab1", "n1-lab2"} {
		f.AddDriver("n1", labPhone{sim.New(s)})
	}
	sims := f.StartIOS("n2", 2)
	var udids []string
	for _, d := range sims.Devices() {
		udids = append(udids, d.UDID())
	}
	slices.Sort(udids)
	waitOnline(t, f, append([]string{"n1-lab1", "n1-lab2"}, udids...)...)
	c := f.Client("alice-agent")
	held := acquire(t, c, args("serial", "n1-p1"))

	for _, tc := range []struct {
		filters map[string]any
		want    []string
	}{
		{args("platform", "ios"), udids},
		{args("tags", []string{"sim-card"}), []string{"n1-lab1", "n1-lab2"}},
		{args("tags", []string{"sim", "lab"}), []string{"n1-lab1", "n1-lab2"}},
		{args("model", "lab phone"), []string{"n1-lab1", "n1-lab2"}},
		{args("node", "n2"), append(slices.Clone(udids), "n2-p1", "n2-p2", "n2-p3")},
		{args("state", "leased"), []string{"n1-p1"}},
		{args("free_only", true, "node", "n1"), []string{"n1-lab1", "n1-lab2", "n1-p2", "n1-p3"}},
		{args("platform", "android", "tags", []string{"nope"}), nil},
	} {
		slices.Sort(tc.want)
		got, pages := pageThrough(t, c, "list_available_devices", withArgs(tc.filters, args("limit", 2)), nil)
		assert.Equal(t, tc.want, nilIfEmpty(got), "list_available_devices %v", tc.filters)
		assert.Equal(t, len(tc.want), pages[0].Summary.Total, "summary total of %v", tc.filters)
		assert.Len(t, pages, max(1, (len(tc.want)+1)/2), "pages of 2 for %v", tc.filters)
	}

	all := pageOf(t, c, "list_available_devices", nil)
	assert.Equal(t, udids, all.IOSDevices, "the HttpRunner seed's iosDevices")
	assert.Equal(t, []string{"n1-lab1", "n1-lab2", "n1-p1", "n1-p2", "n1-p3", "n2-p1", "n2-p2", "n2-p3"}, all.AndroidDevices)
	assert.Empty(t, all.NextCursor, "a farm of one page has no cursor")
	assert.Equal(t, mcp.ListSummary{Total: 10, ByPlatform: map[string]int{"android": 8, "ios": 2},
		ByState: map[string]int{"online": 9, "leased": 1}, ByNode: map[string]int{"n1": 5, "n2": 5}}, all.Summary)

	leases := pageOf(t, c, "list_leases", args("holder", held.Lease.Holder))
	require.Len(t, leases.Leases, 1)
	assert.Equal(t, "n1-p1", leases.Leases[0].Serial)
	assert.Empty(t, leases.Leases[0].Handle, "list_leases shows no handle")
	assert.Equal(t, 0, pageOf(t, c, "list_leases", args("platform", "ios")).Summary.Total)

	// A cursor changed on its way back is refused, and says what to do.
	first := pageOf(t, c, "list_available_devices", args("limit", 3))
	b := []byte(first.NextCursor)
	b[len(b)/2] ^= 1
	res := farmtest.Call(t, c, "list_available_devices", args("limit", 3, "cursor", string(b)))
	require.True(t, res.IsError, "a tampered cursor: %s", farmtest.Text(res))
	contains(t, farmtest.Text(res), "changed or cut", "next_cursor exactly")

	// The CLI pages through with the same filters, as flags, and prints the summary.
	url := f.Gateway().MCPURL
	out, err := runCorral(t, "devices", "--gateway", url, "--platform", "android", "--node", "n1", "--limit", "3")
	require.NoError(t, err, out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 5, "a header, 3 rows and the summary: %s", out)
	assert.Equal(t, "3 of 5 devices shown (--limit; narrow with --platform, --state, --tags, --model, --node): android 5; leased 1, online 4; n1 5",
		lines[4])
	out, err = runCorral(t, "devices", "--gateway", url, "--tags", "lab,sim-card", "--free")
	require.NoError(t, err, out)
	contains(t, out, "n1-lab1", "n1-lab2", "2 devices: android 2; online 2; n1 2")
	assert.NotContains(t, out, "n1-p2")
	out, err = runCorral(t, "devices", "--nats-url", f.URL, "--platform", "ios", "--json")
	require.NoError(t, err, out)
	var listed mcp.DeviceListResult
	require.NoError(t, json.Unmarshal([]byte(out), &listed), out)
	assert.Equal(t, udids, listed.IOSDevices)
	assert.Equal(t, 2, listed.Summary.Total)
	out, err = runCorral(t, "leases", "--gateway", url, "--holder", "nobody")
	require.NoError(t, err, out)
	assert.Equal(t, []string{"SERIAL  HOLDER  EPOCH  EXPIRES IN  QUEUE", "0 leases"}, strings.Split(strings.TrimSpace(out), "\n"))
	out, err = runCorral(t, "devices", "--gateway", url, "--state", "asleep")
	require.Error(t, err, out)
	contains(t, out, `--state "asleep": use one of online, leased`)
}

// withArgs is a copy of a with more's arguments added.
func withArgs(a, more map[string]any) map[string]any {
	out := map[string]any{}
	for _, m := range []map[string]any{a, more} {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// Paging through the devices while nodes come and go and devices are leased and released:
// no device is listed twice, and every device there all along is listed exactly once.
func TestListsPagingWhileDevicesComeAndGo(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 3, PhonesPerNode: 40})
	c := f.Client("pager")
	other := f.Client("leaser")
	stay := map[string]bool{}
	for _, d := range f.Devices() {
		if d.Node != "n3" { // n3 goes
			stay[d.Serial] = true
		}
	}
	var handles []string
	step := 0
	between := func(int) {
		switch step++; {
		case step == 2:
			f.KillNode("n3")
		case step%3 == 0:
			f.StartNode(fmt.Sprintf("n%d", 3+step), 4) // new serials, before and after the cursor
		}
		serial := fmt.Sprintf("n%d-p%d", 1+step%2, 1+step%40)
		if l, err := farmtest.TryCall(t, other, "acquire_device", args("serial", serial)); err == nil && !l.IsError {
			var lease struct{ Lease mcp.LeaseInfo }
			farmtest.Structured(t, l, &lease)
			handles = append(handles, serial, lease.Lease.Handle)
		}
		if len(handles) >= 6 {
			farmtest.MustCall(t, other, "release_device", args("serial", handles[0], "lease", handles[1]))
			handles = handles[2:]
		}
	}
	for _, filters := range []map[string]any{args("limit", 7), args("limit", 5, "platform", "android")} {
		got, pages := pageThrough(t, c, "list_available_devices", filters, between)
		seen := map[string]bool{}
		for _, s := range got {
			require.False(t, seen[s], "%s listed twice (%v)", s, filters)
			seen[s] = true
		}
		for s := range stay {
			assert.True(t, seen[s], "%s, there all along, not listed (%v)", s, filters)
		}
		assert.Greater(t, len(pages), 15, "pages while the farm changed")
	}
	// Devices that come while paging are listed when their serial is still ahead of the cursor.
	farmtest.Eventually(t, 10*time.Second, func() bool {
		p := pageOf(t, c, "list_available_devices", args("node", "n6"))
		return p.Summary.Total == 4
	}, "node n6's phones listed")

	// `corral devices` pages through them all (more than one page) and counts them. Nodes started
	// late may still be registering: the count is compared once the farm holds still around it.
	var total int
	var lines []string
	farmtest.Eventually(t, 30*time.Second, func() bool {
		total = pageOf(t, c, "list_available_devices", nil).Summary.Total
		out, err := runCorral(t, "devices", "--gateway", f.Gateway().MCPURL)
		require.NoError(t, err, out)
		lines = strings.Split(strings.TrimSpace(out), "\n")
		return pageOf(t, c, "list_available_devices", nil).Summary.Total == total
	}, "the farm holds still while `corral devices` lists it")
	require.Greater(t, total, mcp.MaxPageLimit)
	assert.Len(t, lines, total+2, "a header, %d rows and the summary", total)
	assert.True(t, strings.HasPrefix(lines[len(lines)-1], fmt.Sprintf("%d devices: android %d; ", total, total)), lines[len(lines)-1])
}

// 10,000 simulated devices on 10 nodes: no tool's result is over the cap, whatever it is asked
// for, and paging lists every device once.
func TestListsTenThousandDevicesUnderTheCap(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 devices: not in -short")
	}
	const nodes, perNode = 10, 1000
	f := farmtest.StartEmpty(t, farmtest.Options{Quiet: true})
	ids := make([]string, nodes)
	for i := range ids {
		ids[i] = fmt.Sprintf("n%d", i+1)
	}
	require.NoError(t, f.StartNodes(perNode, ids...))
	farmtest.Eventually(t, 2*time.Minute, func() bool {
		n := 0
		for _, d := range f.Devices() {
			if d.State == broker.StateOnline {
				n++
			}
		}
		return n == nodes*perNode
	}, "10,000 devices online")
	c := f.Client("big-farm-agent")
	for k := range 150 { // more leases than a page
		acquire(t, c, args("serial", fmt.Sprintf("n%d-p%d", k%nodes+1, k/nodes+1)))
	}

	for _, a := range []map[string]any{nil, args("limit", mcp.MaxPageLimit), args("free_only", true, "limit", mcp.MaxPageLimit),
		args("node", "n7", "state", "online"), args("platform", "android", "tags", []string{"sim"})} {
		p := pageOf(t, c, "list_available_devices", a)
		assert.NotEmpty(t, p.NextCursor, "%v", a)
		limit, ok := a["limit"].(int)
		if !ok {
			limit = mcp.DefaultPageLimit
		}
		assert.Len(t, p.Devices, limit, "a page of sim devices fits the cap at any limit (%v)", a)
	}
	all, pages := pageThrough(t, c, "list_available_devices", args("limit", mcp.MaxPageLimit), nil)
	require.Len(t, all, nodes*perNode)
	assert.True(t, slices.IsSorted(all) && len(slices.Compact(slices.Clone(all))) == len(all), "every device once, by serial")
	assert.Equal(t, mcp.ListSummary{Total: 10_000, ByPlatform: map[string]int{"android": 10_000},
		ByState: map[string]int{"online": 9850, "leased": 150}, ByNode: map[string]int{"n1": 1000, "n10": 1000, "n2": 1000, "n3": 1000,
			"n4": 1000, "n5": 1000, "n6": 1000, "n7": 1000, "n8": 1000, "n9": 1000}}, pages[len(pages)-1].Summary)
	leased, _ := pageThrough(t, c, "list_leases", nil, nil)
	assert.Len(t, leased, 150)
	// Then every tool, as an agent might first call it (on a free device).
	tools, err := c.ListTools(t.Context(), mcpgo.ListToolsRequest{})
	require.NoError(t, err)
	for _, tl := range tools.Tools {
		res, err := farmtest.TryCall(t, c, tl.Name, args("serial", "n10-p1000"))
		require.NoError(t, err, tl.Name)
		assert.LessOrEqual(t, resultBytes(t, res), mcp.MaxResultBytes, "%s: %.200s", tl.Name, farmtest.Text(res))
	}
}
