package steps

import (
	"errors"
	"fmt"
	"net/url"
)

// CallFailure words a call that got no answer. mcp-go's error repeats itself ("transport
// error: failed to send request: failed to send request: Post …: EOF"): the URL's own error
// says it all. A call lost after it was sent may have run on serial, and its task's record
// says how it ended; the hint filters by tool too, since the device's newest task may be
// another caller's. A call that was still queued never started and has no record: the hint
// says so, rather than pointing at a record that is not its own. corral call words its lost
// calls with it too.
func CallFailure(tool, serial string, err error, sent bool) string {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return fmt.Sprintf("protocol error: %v (is the gateway up?)", err)
	}
	if !sent {
		return fmt.Sprintf("the gateway could not be reached (%v): %s did not run (is the gateway up?)", ue, tool)
	}
	find := "corral tasks --tool " + tool + " --limit 1"
	if serial != "" {
		find = "corral tasks --serial " + serial + " --tool " + tool + " --limit 1"
	}
	return fmt.Sprintf("the connection to the gateway failed after the call was sent, before its answer (%v): %s may have run; "+
		"once the gateway is back, `%s` shows the newest %s task and how it ended (yours if it started: a call still waiting in the device's queue never ran and leaves no record)",
		ue, tool, find, tool)
}
