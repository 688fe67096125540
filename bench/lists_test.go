package bench

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// BenchmarkLists times the list tools in a farm of 10,000 simulated devices on 10 nodes (150
// of them leased), called over streamable HTTP by an mcp-go client as an agent calls them, in
// turns (inTurns) with get_device_status, a gateway-only call that reads one registry entry:
//
//   - devices: list_available_devices without arguments (summary and the first 50);
//   - devices-filtered: platform, tags, node and free_only, limit 100;
//   - devices-page: a page of 100 from the middle of the farm (cursor);
//   - leases: list_leases (every node asked for its leases, then a page of 50);
//   - status: get_device_status of one device (the floor).
//
// It reports each path's p50/p99 (µs), list-p99-µs (the slowest list path's p99),
// ratio-devices (devices' p50 over status' p50) and max-KB, the largest list answer
// (structured content plus its text, as the gateway's cap counts it). Run it alone in its
// process: the farm is large.
func BenchmarkLists(b *testing.B) {
	const nodes, perNode, leased = 10, 1000, 150
	f := farmtest.StartEmpty(b, farmtest.Options{Quiet: true, InProcessNATS: true})
	ids := make([]string, nodes)
	for i := range ids {
		ids[i] = fmt.Sprintf("n%d", i+1)
	}
	if err := f.StartNodes(perNode, ids...); err != nil {
		b.Fatal(err)
	}
	waitOnline(b, f, nodes*perNode)
	c := httpClient(b, f, "bench-lists")
	for k := range leased {
		leaseHandle(b, c, map[string]any{"serial": fmt.Sprintf("n%d-p%d", k%nodes+1, k/nodes+1)})
	}
	middle := map[string]any{"limit": mcp.MaxPageLimit}
	for range nodes * perNode / mcp.MaxPageLimit / 2 {
		middle["cursor"] = nextCursor(b, c, middle)
	}
	lists := []struct {
		name, tool string
		args       map[string]any
	}{
		{"devices", "list_available_devices", nil},
		{"devices-filtered", "list_available_devices", map[string]any{"platform": "android", "tags": []string{"sim"}, "node": "n7",
			"free_only": true, "limit": mcp.MaxPageLimit}},
		{"devices-page", "list_available_devices", middle},
		{"leases", "list_leases", nil},
	}
	var paths []path
	maxBytes := 0
	for _, l := range lists {
		paths = append(paths, path{l.name, func() error { _, err := call(c, l.tool, l.args); return err }})
		for range 20 { // warm up, and weigh the answers (outside the timing)
			res, err := call(c, l.tool, l.args)
			if err != nil {
				b.Fatal(err)
			}
			maxBytes = max(maxBytes, resultBytes(b, res))
		}
	}
	status := map[string]any{"serial": "n5-p500"}
	paths = append(paths, path{"status", func() error { _, err := call(c, "get_device_status", status); return err }})
	lat, _ := inTurns(b, paths)
	quantile := func(i int, q float64) time.Duration { return percentile(slices.Sorted(slices.Values(lat[i])), q) }
	worst := time.Duration(0)
	for i, p := range paths {
		reportLatency(b, p.name+"-", lat[i])
		if p.name != "status" {
			worst = max(worst, quantile(i, 0.99))
		}
	}
	b.ReportMetric(float64(worst.Nanoseconds())/1e3, "list-p99-µs")
	b.ReportMetric(float64(quantile(0, 0.5))/float64(quantile(len(paths)-1, 0.5)), "ratio-devices")
	b.ReportMetric(float64(maxBytes)/1024, "max-KB")
}

// waitOnline polls the gateway's registry until n devices are online.
func waitOnline(b *testing.B, f *farmtest.Farm, n int) {
	b.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		online := 0
		for _, d := range f.Devices() {
			if d.State == broker.StateOnline {
				online++
			}
		}
		if online == n {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d devices online after a minute", online, n)
		}
		time.Sleep(50 * time.Millisecond) // polling the registry of 10,000 takes the farm's CPU too
	}
}

// nextCursor returns the next_cursor of the page args asks for.
func nextCursor(b *testing.B, c *client.Client, args map[string]any) string {
	b.Helper()
	res, err := call(c, "list_available_devices", args)
	if err != nil {
		b.Fatal(err)
	}
	var p mcp.DeviceListResult
	farmtest.Structured(b, res, &p)
	if p.NextCursor == "" {
		b.Fatal("no next page")
	}
	return p.NextCursor
}

// resultBytes is what the gateway's cap counts of a result: structured content as JSON plus
// the text of its text items.
func resultBytes(b *testing.B, res *mcpgo.CallToolResult) int {
	n := 0
	if res.StructuredContent != nil {
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			b.Fatal(err)
		}
		n = len(raw)
	}
	for _, c := range res.Content {
		if t, ok := mcpgo.AsTextContent(c); ok {
			n += len(t.Text)
		}
	}
	return n
}
