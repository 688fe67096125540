package steps

import (
	"errors"
	"fmt"
	"net/url"

	"github.com/corral-farm/corral/nodes/tools"
)

// CallFailure words a call that got no answer. mcp-go's error repeats itself ("transport
// error: failed to send request: failed to send request: Post …: EOF"): the URL's own error
// says it all. A call lost after it was sent may have run on serial, and its task's record
// says how it ended; the hint filters by tool too, since the device's newest task may be
// another caller's. A call that was still queued never started and has no record: the hint
// says so, rather than pointing at a record that is not its own. A tool the gateway runs
// itself (acquire_device, list_leases, …) writes no task record: the hint points at what
// shows its effect instead. corral call words its lost calls with it too.
func CallFailure(tool, serial string, err error, sent bool) string {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return fmt.Sprintf("protocol error: %v (is the gateway up?)", err)
	}
	if !sent {
		return fmt.Sprintf("the gateway could not be reached (%v): %s did not run (is the gateway up?)", ue, tool)
	}
	lost := fmt.Sprintf("the connection to the gateway failed after the call was sent, before its answer (%v): %s may have run; ", ue, tool)
	if _, onDevice := tools.Lookup(tool); !onDevice {
		return lost + gatewayToolHint(tool, serial)
	}
	find := "corral tasks --tool " + tool + " --limit 1"
	if serial != "" {
		find = "corral tasks --serial " + serial + " --tool " + tool + " --limit 1"
	}
	return lost + fmt.Sprintf("once the gateway is back, `%s` shows the newest %s task and how it ended "+
		"(yours if it started: a call still waiting in the device's queue never ran and leaves no record)", find, tool)
}

// gatewayToolHint says, for a lost call of a tool the gateway runs itself (no device runs it,
// so no task record tells how it ended), where its effect shows.
func gatewayToolHint(tool, serial string) string {
	device := "the device"
	if serial != "" {
		device = serial
	}
	switch tool {
	case toolAcquire, toolSelect:
		return fmt.Sprintf("it runs on the gateway and leaves no task record: once the gateway is back, `corral leases` shows whether "+
			"%s was leased to you (a wait cut short leaves no lease; one granted whose handle you lack expires when idle, "+
			"or `corral release SERIAL --force` ends it)", device)
	case toolRelease:
		return fmt.Sprintf("it runs on the gateway and leaves no task record: once the gateway is back, `corral leases` shows whether "+
			"%s is still held (then call it again)", device)
	}
	return "it runs on the gateway and leaves no task record: once the gateway is back, see whether it took effect before " +
		"calling it again (`corral devices`, `corral leases` and `corral tasks` show the farm as it is)"
}
