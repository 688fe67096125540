package main

import (
	"context"
	"encoding/json"
	"fmt"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/mcp"
)

// On a farm with no sessions bucket (no gateway ever ran: clifarm_nosessions.go) corral call's
// get_latest_task finds no latest task, ever: the in-process gateway answered "No task yet:
// this session ... called no device tool in the last 24 h", as if there had been none, and only
// an earlier command's standard error said why. latestNotKept has the answer say it.

// latestNotKept returns res, get_latest_task's answer of no task (status none) on a farm with
// no sessions bucket, its message saying that the latest task is not kept there and which
// corral tasks command lists it (flags: how that command reaches the same farm, sameFarm);
// any other result as it is.
func (f *cliFarm) latestNotKept(ctx context.Context, tool string, args map[string]any, res *mcpgo.CallToolResult, flags string) *mcpgo.CallToolResult {
	var rec mcp.TaskRecordResult
	if tool != "get_latest_task" || res == nil || res.IsError || structured(res, &rec) != nil || rec.Status != "none" || !f.noSessions(ctx) {
		return res
	}
	which := "--tool run_agent_task " // get_latest_task's own: the latest agent task
	if anyTool, _ := args["anyTool"].(bool); anyTool {
		which = ""
	}
	if serial, _ := args["serial"].(string); serial != "" {
		which += "--serial " + shellQuoted(serial) + " "
	}
	rec.Message = fmt.Sprintf("No latest task is kept on this farm: its NATS has no %s bucket, which a gateway makes "+
		"(corral gateway or corral up), so no corral call's task is kept as the latest for the next. "+
		"corral tasks %s%s--limit 1 lists the latest; get_task_result takes any task id.", broker.SessionBucket, flags, which)
	return reworded(res, rec, rec.Message)
}

// reworded is res with rec, its record with a new message, as its structured content, and the
// message first in its text: or res itself, should rec not encode.
func reworded(res *mcpgo.CallToolResult, rec any, message string) *mcpgo.CallToolResult {
	b, err := json.Marshal(rec)
	if err != nil {
		return res
	}
	out := mcpgo.NewToolResultStructured(json.RawMessage(b), string(b))
	out.Content = append([]mcpgo.Content{mcpgo.NewTextContent(message)}, out.Content...)
	return out
}
