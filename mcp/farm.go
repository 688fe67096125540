// Package mcp is Corral's front door: an MCP server (streamable HTTP, and stdio through a
// bridge) whose tools route each call to the node that owns the device. The gateway keeps no
// state of its own: devices, leases and sessions live in NATS, reached through a Farm.
//
// A device tool is a tools.Tool (nodes/tools: one file and one line in tools.All) that the
// gateway turns into its MCP tool; a gateway-only tool is one file and one line in catalog.go.
// See docs/adding-a-tool.md.
package mcp

import (
	"context"

	"github.com/corral-farm/corral/broker"
)

// Farm is what the front door needs from the rest of Corral. broker.Client implements it over
// NATS; tests may pass their own.
type Farm interface {
	// Devices lists the registry, one entry per serial, sorted by serial (the lists page by
	// it); Device looks one up by serial.
	Devices() []broker.DeviceEntry
	Device(serial string) (broker.DeviceEntry, bool)
	// Run sends a task to the device's owner node and waits for its result. The error is for
	// what went wrong around the task (node lost, no answer); refusals and driver failures come
	// back as a result with their outcome. progress may be nil.
	Run(ctx context.Context, req broker.TaskRequest, progress func(broker.Progress)) (broker.TaskResult, error)
	// Acquire asks for a lease. A caller whose ctx ends before the answer leaves nothing held:
	// its request is withdrawn, and a lease granted as it left is released.
	Acquire(ctx context.Context, req broker.AcquireRequest) (broker.LeaseAnswer, error)
	Release(ctx context.Context, req broker.ReleaseRequest) (broker.LeaseAnswer, error)
	Abort(ctx context.Context, req broker.AbortRequest) (broker.AbortAnswer, error)
	// Leases lists the explicit leases of every node, handles blanked.
	Leases(ctx context.Context) ([]broker.Lease, error)
	// SitesDown names the edge sites whose link to this hub is down, sorted: their nodes are
	// not asked, and keep their leases there (none but at a hub).
	SitesDown() []string
	// TaskRecord reads a finished task's record from the event stream, waiting a moment for
	// one about to be written; PollTaskRecord waits only when this gateway had the task's
	// answer lately, so that polling a task that runs, or an unknown id, answers at once.
	TaskRecord(ctx context.Context, id string) (broker.TaskResult, error)
	PollTaskRecord(ctx context.Context, id string) (broker.TaskResult, error)
	// Screenshot reads a task's screenshot by the name its record gives, checked.
	Screenshot(ctx context.Context, name string) ([]byte, error)
	// SessionDevice and UpdateSessionDevice keep a protocol session's default device and the
	// leases it took. UpdateSessionDevice writes what change makes of the stored value (when it
	// says to), as a compare-and-set: calls of one session at once must not lose each other's.
	SessionDevice(ctx context.Context, session string) (broker.SessionDefault, bool)
	UpdateSessionDevice(ctx context.Context, session string, change func(d *broker.SessionDefault) bool) error
	// LatestTask and SetLatestTask keep the id of the latest task of a session or holder (who,
	// as latestOf names it), for get_latest_task on any gateway. SetLatestTask is on every
	// call's path: it must not wait for the write.
	LatestTask(ctx context.Context, who string) (string, bool)
	SetLatestTask(ctx context.Context, who, taskID string) error
	// The sessions clients ended with DELETE, for every gateway (session_end.go).
	farmSessionEnds
}
