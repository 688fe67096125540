package mcp

import (
	"context"
	"encoding/json"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// statusNone is the status and outcome of get_latest_task's answer when there is no task to
// show.
const statusNone = "none"

// noLatestTask is get_latest_task's answer when the caller has no task of the kind it asked
// for in the last 24 h (on device serial, when it named one): an answer, not an error (the
// seed's "no task" answers, as abort_task's "No task is currently running.", are plain
// answers). Its text says so first; the structured record, with status "none", no task id and
// the device named, keeps to the tool's output schema.
func noLatestTask(ctx context.Context, anyTool bool, serial string) *mcpgo.CallToolResult {
	on := ""
	if serial != "" {
		on = " on device " + serial
	}
	msg := "No agent task yet: this session (without a session: this client) ran no run_agent_task" + on + " in the last 24 h. " +
		`get_latest_task {"anyTool": true} shows the latest task of any device tool; get_task_result takes any task id.`
	if anyTool {
		msg = "No task yet: this session (without a session: this client) called no device tool" + on + " in the last 24 h; " +
			"get_task_result takes any task id."
	}
	out := TaskRecordResult{Serial: serial, Status: statusNone, Outcome: statusNone, Message: msg}
	b, err := json.Marshal(out)
	if err != nil {
		return errorResult("result cannot be encoded: " + err.Error())
	}
	res := structuredJSON(ctx, b)
	res.Content = append([]mcpgo.Content{mcpgo.NewTextContent(msg)}, res.Content...)
	return res
}
