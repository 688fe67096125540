package mcp

import (
	"context"
	"sync"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/corral-farm/corral/broker"
)

// inFlight is the device tool calls this gateway sent and has not had answered: the latest
// task of their caller (latestOf) before the answer records it (rememberLatest), so that
// get_latest_task {"anyTool":true} shows a call still running, or waiting for its device, as
// running. It lives in memory only: an entry costs no KV write (every call pays for it) and
// lasts the call. The CLI's in-process gateway writes a call as it starts instead
// (cmd/corral: keepWhenStarted), for the next corral call.
type inFlight struct {
	mu    sync.Mutex
	calls map[string]flying // task id → its call
	sent  uint64            // calls added so far: their order
}

// flying is a call in flight: whose (its session, else its holder: latestOf) and what. Small
// enough for the map to hold it in place (no allocation per call).
type flying struct {
	session      mcpserver.ClientSession
	holder       broker.Holder
	id           string
	serial, tool string
	at           int64  // sent, Unix nanoseconds
	n            uint64 // send order: the newest is the latest
}

func newInFlight() *inFlight { return &inFlight{calls: map[string]flying{}} }

// add records task as sent by ctx's caller, until done(task.ID).
func (f *inFlight) add(ctx context.Context, task broker.TaskRequest) {
	c := flying{session: mcpserver.ClientSessionFromContext(ctx), holder: task.Holder, id: task.ID, serial: task.Serial, tool: task.Tool,
		at: time.Now().UnixNano()}
	f.mu.Lock()
	f.sent++
	c.n = f.sent
	f.calls[task.ID] = c
	f.mu.Unlock()
}

// done forgets the call of task id: its answer came and was recorded (or is no one's).
func (f *inFlight) done(id string) {
	f.mu.Lock()
	delete(f.calls, id)
	f.mu.Unlock()
}

// newest is who's (latestOf) newest call in flight, on device serial if not "".
func (f *inFlight) newest(who, serial string) (flying, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var best flying
	for _, c := range f.calls {
		if c.n > best.n && (serial == "" || c.serial == serial) && c.who() == who {
			best = c
		}
	}
	return best, best.n != 0
}

// who is whose latest task the call is, as latestOf names it.
func (c flying) who() string {
	if c.session != nil && c.session.SessionID() != "" {
		return "session:" + c.session.SessionID()
	}
	return "holder:" + c.holder.Name()
}

// inFlightLatest is what get_latest_task shows of the caller's newest call in flight (on
// device serial, if not ""), if any: any tool's, as an agent task is the latest from its start.
func (g *Gateway) inFlightLatest(ctx context.Context, anyTool bool, serial string) (TaskRecordResult, bool) {
	if !anyTool {
		return TaskRecordResult{}, false
	}
	c, ok := g.inFlight.newest(latestOf(ctx), serial)
	if !ok {
		return TaskRecordResult{}, false
	}
	return g.inFlightShown(ctx, c)
}

// inFlightShown is what get_latest_task shows of call c: the registry's record of it running
// on its device, else (waiting for the device) running, not started; ok false when its device
// is offline (its caller is about to be told it is lost).
func (g *Gateway) inFlightShown(ctx context.Context, c flying) (TaskRecordResult, bool) {
	if out, ok := g.runningShown(ctx, c.id); ok {
		return out, true
	}
	d, ok := g.farm.Device(c.serial)
	if !ok || d.State == broker.StateOffline {
		return TaskRecordResult{}, false
	}
	return TaskRecordResult{TaskID: c.id, Serial: c.serial, Node: d.Node, Tool: c.tool, Holder: c.holder.String(),
		Status: "running", Outcome: "running", Submitted: time.Unix(0, c.at).UTC()}, true
}
