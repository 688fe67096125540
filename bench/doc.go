// Package bench measures Corral's speed targets with Go benchmarks on a whole farm started in
// the benchmark's process (internal/farmtest: a real nats-server with JetStream, edge nodes with
// simulated phones, a gateway over loopback HTTP, real mcp-go clients). Nothing is mocked.
//
// Each benchmark records every call's latency and reports percentiles and throughput with
// b.ReportMetric ("p50-µs", "p90-µs", "p99-µs", "calls/s", …); ns/op is the wall time per call
// or per round. The clients run in the same process and on the same cores as the farm, so every
// number includes the client's own cost. Wall-clock numbers move with whatever else the machine
// runs; "cpu-µs/call" (the process's CPU time per call), allocs/op and "nats-in/call" (messages
// the NATS server received per call) hardly do, and are the figures to compare across changes.
//
//   - BenchmarkCall: one sequential client calling get_screen_size, layer by layer: a bare
//     NATS request/reply on the same server (the floor), broker.Client.Run (NATS, node
//     actors, sim driver), an in-process MCP client, and MCP over streamable HTTP; and a bare
//     mcp-go server with a no-op tool of the same shape, in-process and over HTTP (the cost of
//     MCP itself).
//   - BenchmarkCallParallel: 32 clients over 100 devices (4 nodes × 25 phones).
//   - BenchmarkLease: acquire_device on a free device, and the hand-over of a released device
//     to the caller waiting in its queue.
//   - BenchmarkAbort: a running sleep 60 ended by abort_task (until the sleep's answer), and
//     by its caller cancelling the call (until the device has run the next call).
//   - BenchmarkTenThousandDevices: 10 nodes with 1,000 phones each start at once; time until
//     the gateway's registry shows all 10,000 online, the process's resident memory, and then
//     acquire_device in a farm that big. Run it alone, with -benchtime=1x, so that memory is
//     its own.
//
// `make bench` (scripts/bench.sh) runs them on 2 cores and prints the table the README quotes.
package bench
