package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// manyDevices is a farm of n devices over nodes nodes, of every platform, state, model and tag
// mix the filters tell apart.
func manyDevices(n, nodes int) []broker.DeviceEntry {
	out := make([]broker.DeviceEntry, n)
	for i := range out {
		d := broker.DeviceEntry{V: 1, Serial: fmt.Sprintf("d%05d", i), Platform: device.PlatformAndroid,
			Model: fmt.Sprintf("Pixel %d", i%3), Node: fmt.Sprintf("n%02d", i%nodes), State: broker.States[i%len(broker.States)]}
		if i%4 == 0 {
			d.Platform = device.PlatformIOS
		}
		if i%2 == 0 {
			d.Tags = append(d.Tags, "lab")
		}
		if i%5 == 0 {
			d.Tags = append(d.Tags, "sim-card")
		}
		out[i] = d
	}
	return out
}

// page is one page of a list tool, decoded.
type page struct {
	DeviceListResult
	Leases []LeaseInfo `json:"leases"`
}

// listPage calls a list tool and decodes its page, checking the result's schema and size.
func listPage(t *testing.T, c *client.Client, tool string, args map[string]any) page {
	t.Helper()
	res := call(t, c, tool, args)
	m := wantOK(t, tool, res)
	if n := resultSize(res); n > MaxResultBytes {
		t.Fatalf("%s %v: result of %d bytes, over the cap of %d", tool, args, n, MaxResultBytes)
	}
	var p page
	b, _ := json.Marshal(m)
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// listAll pages through a list tool with args and returns the keys of every page in order,
// and the pages; between calls it runs between (may be nil).
func listAll(t *testing.T, c *client.Client, tool string, args map[string]any, between func()) ([]string, []page) {
	t.Helper()
	args = cloneArgs(args)
	var keys []string
	var pages []page
	for range 10_000 {
		p := listPage(t, c, tool, args)
		pages = append(pages, p)
		for _, d := range p.Devices {
			keys = append(keys, d.Serial)
		}
		for _, l := range p.Leases {
			keys = append(keys, l.Serial)
		}
		if p.NextCursor == "" {
			if p.Note != "" {
				t.Errorf("the last page has a note: %s", p.Note)
			}
			return keys, pages
		}
		if !strings.Contains(p.Note, "next_cursor") {
			t.Errorf("a page with more after it does not say how to get them: %q", p.Note)
		}
		args["cursor"] = p.NextCursor
		if between != nil {
			between()
		}
	}
	t.Fatal("paging never ends")
	return nil, nil
}

func cloneArgs(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func serialsWhere(devs []broker.DeviceEntry, keep func(broker.DeviceEntry) bool) []string {
	var out []string
	for _, d := range devs {
		if keep(d) {
			out = append(out, d.Serial)
		}
	}
	return out
}

// Each filter keeps exactly the devices it names, page after page, and the summary counts them.
func TestListDevicesFilters(t *testing.T) {
	farm := newFakeFarm(t)
	farm.devices = manyDevices(1000, 7)
	slices.Reverse(farm.devices) // the registry's order is not the pages'
	c := newTestClient(t, farm)
	devs := manyDevices(1000, 7)
	has := func(d broker.DeviceEntry, tags ...string) bool {
		for _, t := range tags {
			if !slices.Contains(d.Tags, t) {
				return false
			}
		}
		return true
	}
	for _, tc := range []struct {
		args map[string]any
		keep func(broker.DeviceEntry) bool
	}{
		{nil, func(broker.DeviceEntry) bool { return true }},
		{map[string]any{"platform": "iOS"}, func(d broker.DeviceEntry) bool { return d.Platform == device.PlatformIOS }},
		{map[string]any{"state": "leased"}, func(d broker.DeviceEntry) bool { return d.State == broker.StateLeased }},
		{map[string]any{"tags": []string{"lab"}}, func(d broker.DeviceEntry) bool { return has(d, "lab") }},
		{map[string]any{"tags": []string{"sim-card", "lab"}}, func(d broker.DeviceEntry) bool { return has(d, "lab", "sim-card") }},
		{map[string]any{"model": "pixel 2"}, func(d broker.DeviceEntry) bool { return d.Model == "Pixel 2" }},
		{map[string]any{"node": "n03"}, func(d broker.DeviceEntry) bool { return d.Node == "n03" }},
		{map[string]any{"free_only": true}, func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline }},
		{map[string]any{"platform": "android", "tags": []string{"sim-card"}, "free_only": true, "limit": 7},
			func(d broker.DeviceEntry) bool {
				return d.Platform == device.PlatformAndroid && has(d, "sim-card") && d.State == broker.StateOnline
			}},
		{map[string]any{"node": "no-such-node"}, func(broker.DeviceEntry) bool { return false }},
	} {
		t.Run(fmt.Sprint(tc.args), func(t *testing.T) {
			want := serialsWhere(devs, tc.keep)
			got, pages := listAll(t, c, "list_available_devices", tc.args, nil)
			if !slices.Equal(got, want) {
				t.Fatalf("listed %d devices, want %d:\n got %v\nwant %v", len(got), len(want), head(got), head(want))
			}
			limit := DefaultPageLimit
			if l, ok := tc.args["limit"].(int); ok {
				limit = l
			}
			if wantPages := max(1, (len(want)+limit-1)/limit); len(pages) != wantPages {
				t.Errorf("%d pages of at most %d for %d devices, want %d", len(pages), limit, len(want), wantPages)
			}
			for _, p := range pages {
				if p.Summary.Total != len(want) {
					t.Errorf("summary total %d, want %d", p.Summary.Total, len(want))
				}
			}
		})
	}
}

func head(s []string) []string { return s[:min(len(s), 8)] }

// The summary counts every matching device by platform, state and node, over all pages; a
// farm of more nodes than by_node lists puts the rest in other_nodes.
func TestListSummary(t *testing.T) {
	farm := newFakeFarm(t)
	farm.devices = manyDevices(610, 61)
	c := newTestClient(t, farm)
	p := listPage(t, c, "list_available_devices", map[string]any{"tags": []string{"lab"}})
	byPlatform, byState, byNode := map[string]int{}, map[string]int{}, map[string]int{}
	total := 0
	for _, d := range farm.devices {
		if slices.Contains(d.Tags, "lab") {
			total++
			byPlatform[d.Platform]++
			byState[d.State]++
			byNode[d.Node]++
		}
	}
	s := p.Summary
	if s.Total != total || !mapsEqual(s.ByPlatform, byPlatform) || !mapsEqual(s.ByState, byState) {
		t.Fatalf("summary %+v; want total %d, by platform %v, by state %v", s, total, byPlatform, byState)
	}
	if len(s.ByNode) != maxSummaryNodes {
		t.Fatalf("by_node lists %d nodes, want the %d largest", len(s.ByNode), maxSummaryNodes)
	}
	listed := 0
	for n, k := range s.ByNode {
		if byNode[n] != k {
			t.Errorf("by_node[%s] = %d, want %d", n, k, byNode[n])
		}
		listed += k
	}
	if listed+s.OtherNodes != total {
		t.Errorf("by_node counts %d and other_nodes %d; want them to add up to %d", listed, s.OtherNodes, total)
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A farm no larger than a page gets what it always got (the HttpRunner seed's lists and every
// device), plus the summary, and no cursor.
func TestListDevicesSmallFarm(t *testing.T) {
	c := newTestClient(t, newFakeFarm(t))
	res := call(t, c, "list_available_devices", nil)
	m := wantOK(t, "list_available_devices", res)
	if _, ok := m["next_cursor"]; ok {
		t.Fatalf("a small farm got a cursor: %v", m)
	}
	p := listPage(t, c, "list_available_devices", nil)
	if !slices.Equal(p.AndroidDevices, []string{"android-busy", "android-gone", "emulator-5554"}) ||
		!slices.Equal(p.IOSDevices, []string{"00008101-IPHONE"}) || len(p.Devices) != 4 || p.Note != "" {
		t.Fatalf("list: %+v", p.DeviceListResult)
	}
	want := ListSummary{Total: 4, ByPlatform: map[string]int{"android": 3, "ios": 1},
		ByState: map[string]int{"online": 2, "leased": 1, "offline": 1}, ByNode: map[string]int{"n1": 2, "n2": 2}}
	if s := p.Summary; s.Total != want.Total || !mapsEqual(s.ByPlatform, want.ByPlatform) || !mapsEqual(s.ByState, want.ByState) ||
		!mapsEqual(s.ByNode, want.ByNode) {
		t.Fatalf("summary %+v, want %+v", s, want)
	}
}

// Paging while devices come and go: no device comes twice, and every device there all along
// comes exactly once.
func TestListPagingWhileDevicesChange(t *testing.T) {
	farm := newFakeFarm(t)
	farm.devices = manyDevices(2000, 10)
	c := newTestClient(t, farm)
	stay := map[string]bool{}
	for _, d := range farm.devices {
		if !strings.HasSuffix(d.Serial, "7") { // those ending in 7 may go
			stay[d.Serial] = true
		}
	}
	round := 0
	between := func() {
		round++
		// One that may go goes; a new one comes before and after every page boundary.
		farm.devices = slices.DeleteFunc(farm.devices, func(d broker.DeviceEntry) bool {
			return !stay[d.Serial] && len(d.Serial) == 6 && d.Serial[1:4] == fmt.Sprintf("%03d", round%200)
		})
		for _, s := range []string{fmt.Sprintf("d%05d+%d", round*29%2000, round), fmt.Sprintf("a-new-%d", round), fmt.Sprintf("z-new-%d", round)} {
			farm.devices = append(farm.devices, broker.DeviceEntry{V: 1, Serial: s, Platform: "android", Node: "n99", State: broker.StateOnline})
		}
	}
	got, _ := listAll(t, c, "list_available_devices", map[string]any{"limit": 37}, between)
	seen := map[string]bool{}
	for _, s := range got {
		if seen[s] {
			t.Fatalf("%s listed twice", s)
		}
		seen[s] = true
	}
	for s := range stay {
		if !seen[s] {
			t.Errorf("%s, there all along, never listed", s)
		}
	}
	if round < 50 {
		t.Fatalf("only %d pages: the farm barely changed", round)
	}
}

// A cursor that was changed, cut, made by another list or for other filters is refused with
// a clear error, and nothing is listed.
func TestListCursorRefused(t *testing.T) {
	farm := newFakeFarm(t)
	farm.devices = manyDevices(300, 3)
	farm.LeasesFn = func(context.Context) ([]broker.Lease, error) { return leasesOn(farm.devices[:120]), nil }
	c := newTestClient(t, farm)
	good := listPage(t, c, "list_available_devices", map[string]any{"platform": "android"}).NextCursor
	leasesCursor := listPage(t, c, "list_leases", nil).NextCursor
	if good == "" || leasesCursor == "" {
		t.Fatal("no cursor to tamper with")
	}
	flip := func(s string, i int) string {
		b := []byte(s)
		b[i] = map[bool]byte{true: 'A', false: 'B'}[b[i] != 'A']
		return string(b)
	}
	for name, tc := range map[string]struct {
		args map[string]any
		want string
	}{
		"changed":        {map[string]any{"platform": "android", "cursor": flip(good, len(good)/2)}, "changed or cut"},
		"changed key":    {map[string]any{"platform": "android", "cursor": flip(good, 12)}, "changed or cut"},
		"cut":            {map[string]any{"platform": "android", "cursor": good[:len(good)-3]}, "cursor"},
		"other filters":  {map[string]any{"platform": "ios", "cursor": good}, "other filters"},
		"no filters":     {map[string]any{"cursor": good}, "other filters"},
		"another list":   {map[string]any{"cursor": leasesCursor}, "list_leases"},
		"not base64":     {map[string]any{"cursor": "page=2"}, "not a cursor"},
		"too long":       {map[string]any{"cursor": strings.Repeat("A", 2000)}, "longer than any cursor"},
		"empty checksum": {map[string]any{"cursor": "AQ"}, "too short"},
	} {
		t.Run(name, func(t *testing.T) {
			res := call(t, c, "list_available_devices", tc.args)
			wantError(t, res, tc.want, "next_cursor exactly", "leave cursor out")
		})
	}
	// And the good one still works, with its filters.
	p := listPage(t, c, "list_available_devices", map[string]any{"platform": "android", "cursor": good})
	if len(p.Devices) == 0 || p.Devices[0].Platform != "android" {
		t.Fatalf("the good cursor: %+v", p.Devices)
	}
}

// Bad filters and limits are refused and say what they take.
func TestListBadArguments(t *testing.T) {
	c := newTestClient(t, newFakeFarm(t))
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"list_available_devices", map[string]any{"limit": MaxPageLimit + 1}, "limit must be 1 to 100"},
		{"list_available_devices", map[string]any{"limit": -1}, "limit must be 1 to 100"},
		{"list_available_devices", map[string]any{"limit": 2.5}, "limit"},
		{"list_available_devices", map[string]any{"state": "asleep"}, "none of the device states: online, leased"},
		{"list_available_devices", map[string]any{"tags": []string{""}}, "each tag must be 1 to"},
		{"list_available_devices", map[string]any{"node": strings.Repeat("n", maxSerialLen+1)}, "node is 257 bytes long"},
		{"list_available_devices", map[string]any{"holder": "alice"}, "list_available_devices takes: cursor, free_only, limit"},
		{"list_leases", map[string]any{"free_only": true}, "list_leases takes: cursor, holder, limit"},
		{"list_leases", map[string]any{"holder": strings.Repeat("h", maxSerialLen+1)}, "holder is 257 bytes long"},
	} {
		wantError(t, call(t, c, tc.tool, tc.args), tc.want)
	}
}

// A page whose devices carry many long tags is cut short of its limit to fit the result cap,
// says so, and paging still yields every device once.
func TestListPageFitsTheCap(t *testing.T) {
	farm := newFakeFarm(t)
	farm.devices = manyDevices(300, 3)
	for i := range farm.devices {
		for k := range maxTags {
			farm.devices[i].Tags = append(farm.devices[i].Tags, fmt.Sprintf("tag-%02d-%s", k, strings.Repeat("x", 50)))
		}
	}
	c := newTestClient(t, farm)
	first := listPage(t, c, "list_available_devices", map[string]any{"limit": MaxPageLimit})
	if len(first.Devices) >= MaxPageLimit || len(first.Devices) == 0 {
		t.Fatalf("a page of %d devices of 2 KB each; want fewer than %d, to fit %d bytes", len(first.Devices), MaxPageLimit, MaxResultBytes)
	}
	if !strings.Contains(first.Note, "fewer than limit") || !strings.Contains(first.Note, "32 KB") {
		t.Errorf("the note does not say why the page is short: %q", first.Note)
	}
	got, _ := listAll(t, c, "list_available_devices", map[string]any{"limit": MaxPageLimit}, nil)
	if want := serialsWhere(farm.devices, func(broker.DeviceEntry) bool { return true }); !slices.Equal(got, want) {
		t.Fatalf("paged %d devices, want %d", len(got), len(want))
	}
}

// leasesOn are leases on devs, held by alice (even) and bob (odd).
func leasesOn(devs []broker.DeviceEntry) []broker.Lease {
	out := make([]broker.Lease, len(devs))
	for i, d := range devs {
		h := broker.Holder{Principal: "alice", Client: "claude"}
		if i%2 == 1 {
			h = broker.Holder{Principal: "bob"}
		}
		out[i] = broker.Lease{V: 1, Handle: "lease_secret" + d.Serial, Serial: d.Serial, Node: d.Node, Holder: h, Epoch: 3,
			AcquiredAt: time.Now(), ExpiresAt: time.Now().Add(time.Minute), MaxUntil: time.Now().Add(time.Hour)}
	}
	slices.Reverse(out) // nodes answer in any order
	return out
}

// list_leases filters by the leased device and by holder, pages, counts, and never shows a
// handle.
func TestListLeasesFilters(t *testing.T) {
	farm := newFakeFarm(t)
	farm.devices = manyDevices(400, 4)
	farm.LeasesFn = func(context.Context) ([]broker.Lease, error) {
		return append(leasesOn(farm.devices[:300]), broker.Lease{V: 1, Serial: "gone-phone", Node: "n00", Holder: broker.Holder{Principal: "carol"}}), nil
	}
	c := newTestClient(t, farm)
	for _, tc := range []struct {
		args map[string]any
		want int
	}{
		{nil, 301},
		{map[string]any{"holder": "alice"}, 150},
		{map[string]any{"holder": "alice (claude)"}, 150},
		{map[string]any{"holder": "bob", "platform": "ios"}, 0}, // iOS devices are every 4th: even
		{map[string]any{"holder": "alice", "platform": "ios"}, 75},
		{map[string]any{"node": "n00"}, 76}, // gone-phone's lease names its node
		{map[string]any{"node": "n00", "model": "pixel 0"}, 25},
	} {
		got, pages := listAll(t, c, "list_leases", tc.args, nil)
		if len(got) != tc.want || pages[0].Summary.Total != tc.want {
			t.Errorf("list_leases %v: %d leases, summary %d; want %d", tc.args, len(got), pages[0].Summary.Total, tc.want)
		}
		if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
			t.Errorf("list_leases %v: not each once by serial: %v", tc.args, head(got))
		}
		for _, p := range pages {
			for _, l := range p.Leases {
				if l.Handle != "" {
					t.Fatalf("list_leases shows the handle of %s", l.Serial)
				}
			}
		}
	}
}
