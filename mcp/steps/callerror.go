package steps

import (
	"errors"
	"fmt"
	"net/url"
)

// CallFailure words a call that got no answer. mcp-go's error repeats itself ("transport
// error: failed to send request: failed to send request: Post …: EOF"): the URL's own error
// says it all. A call lost after it was sent may have run on serial, and its task's record
// says how it ended. corral call words its lost calls with it too.
func CallFailure(tool, serial string, err error, sent bool) string {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return fmt.Sprintf("protocol error: %v (is the gateway up?)", err)
	}
	if !sent {
		return fmt.Sprintf("the gateway could not be reached (%v): %s did not run (is the gateway up?)", ue, tool)
	}
	find := "corral tasks --limit 1"
	if serial != "" {
		find = "corral tasks --serial " + serial + " --limit 1"
	}
	return fmt.Sprintf("the connection to the gateway failed after the call was sent, before its answer (%v): %s may have run; "+
		"once the gateway is back, `%s` shows its task and how it ended", ue, tool, find)
}
