package mcp

import "testing"

// BenchmarkDeviceToolCall is one device tool's call through the gateway, over an in-process
// client and a farm that answers at once: what the gateway adds to every call around its node's
// answer (the latest task's bookkeeping among it). go test -run x -bench DeviceToolCall -benchmem ./mcp
func BenchmarkDeviceToolCall(b *testing.B) {
	farm := newFakeFarm(b)
	cl := newTestClient(b, farm)
	args := map[string]any{"serial": phone, "x": 0.5, "y": 0.5}
	b.ReportAllocs()
	for b.Loop() {
		if res := call(b, cl, "tap_xy", args); res.IsError {
			b.Fatal(resultText(res))
		}
	}
}
