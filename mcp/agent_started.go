package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// startedAnswer is the answer to run_agent_task with wait: false once its task runs: the
// words of what to do next, then the JSON of its result so far (status running, no
// conclusion: the agent has concluded nothing yet), as a finished task's answer has its
// report, then its JSON.
func (g *Gateway) startedAnswer(ctx context.Context, serial string, task broker.TaskRequest, run agentRun) *mcpgo.CallToolResult {
	b, err := json.Marshal(tools.AgentTaskResult{TaskID: task.ID, Goal: run.goal, Status: "running"})
	if err != nil {
		return errorResult(fmt.Sprintf("result cannot be encoded: %v", err))
	}
	b, _ = withNullError(b)
	res := structuredJSON(ctx, b)
	res.Content = append([]mcpgo.Content{mcpgo.NewTextContent(startedWords(task.ID, task.Tool, serial))}, res.Content...)
	return res
}

// startedWords tell the caller of a task started without waiting how to follow it: without
// braces, so that the answer's only JSON is its result's.
func startedWords(id, tool, serial string) string {
	return fmt.Sprintf("Task %s (%s on device %s) started and runs on: get_task_result with taskId %s "+
		"(or get_latest_task) reads it, running or ended; abort_task stops it.", id, tool, serial, id)
}
