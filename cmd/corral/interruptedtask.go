package main

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// Through --gateway, an interrupted call's answer (with its task's id) never comes: the request
// is cancelled (Ctrl-C, or its --timeout passed). The gateway still records the task as its
// session's latest, so corral call asks that session, before closing it, which task it was, and
// names get_task_result with its id: a command that works through the gateway. A later corral
// call is a new session, whose get_latest_task finds its holder's latest, which any other call
// as that holder moves. Without --gateway the in-process front door knows the task it sent
// (cliFarm.withTaskID).

// defaultTaskIDWait bounds how long an interrupted call waits for the gateway to record its
// task as the session's latest (it does so once the cancelled request ends): a person waits
// for the hint after Ctrl-C. (operatorFlags.taskIDWait; a test on a loaded machine gives more.)
const defaultTaskIDWait = 3 * time.Second

// interruptedTask is an interrupted call's error with the id of the task it sent.
type interruptedTask struct {
	id  string
	err error
}

func (e *interruptedTask) Error() string { return e.err.Error() }
func (e *interruptedTask) Unwrap() error { return e.err }

// sentCall is what an interrupted call sent: the latest task get_latest_task shows is its task
// only if it is of this tool, on this serial (when the call named one), and submitted once the
// call began. Until the call's record lands, the latest is the holder's previous task (no
// protocol session keeps a latest of its own), whose id would send the user to another task.
type sentCall struct {
	tool, serial string
	began        time.Time
}

// withTaskID adds to err, when ctx ended (interrupted, or its deadline passed), the id of the
// task call sent on c's session, if the gateway recorded one within wait. A gateway whose clock
// runs behind this machine's shows no task as begun after the call, so its id is left out and
// the hint names corral tasks instead: no id rather than another task's.
func withTaskID(ctx context.Context, c *client.Client, call sentCall, err error, wait time.Duration) error {
	if err == nil || ctx.Err() == nil {
		return err
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), wait)
	defer cancel()
	req := mcpgo.CallToolRequest{}
	// anyTool: the interrupted call may be of any tool, not only an agent task.
	req.Params.Name, req.Params.Arguments = "get_latest_task", map[string]any{"includeSteps": false, "anyTool": true}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		res, callErr := c.CallTool(wctx, req)
		if callErr == nil && !res.IsError {
			var rec struct {
				TaskID    string    `json:"taskId"`
				Tool      string    `json:"tool"`
				Serial    string    `json:"serial"`
				Submitted time.Time `json:"submitted"`
			}
			if structured(res, &rec) == nil && rec.TaskID != "" && call.sent(rec.Tool, rec.Serial, rec.Submitted) {
				return &interruptedTask{id: rec.TaskID, err: err}
			}
		}
		select {
		case <-wctx.Done():
			return err // none recorded (refused before a node saw it) or no answer: corral tasks finds it
		case <-tick.C:
		}
	}
}

// sent says whether a task of tool on serial, submitted at submitted, is the one call sent.
func (call sentCall) sent(tool, serial string, submitted time.Time) bool {
	return tool == call.tool && (call.serial == "" || serial == call.serial) &&
		!submitted.IsZero() && !submitted.Before(call.began)
}
