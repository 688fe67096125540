package agent

import "github.com/corral-farm/corral/nodes/agent/model"

// modelFailure is what the logs say of a failed model call: the status its server answered,
// the call's outcome and the error's length, never its text. The text may quote the server's
// error body, and some servers echo the request there (the goal, text to type, a passcode);
// the task's record keeps it for its caller.
func modelFailure(err error) []any {
	status, outcome := model.Failure(err)
	return []any{"status", status, "outcome", outcome, "error_runes", runes(err.Error())}
}
