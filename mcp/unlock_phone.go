package mcp

import "github.com/corral-farm/corral/nodes/tools"

// unlock_phone takes no passcode: the node knows it (--passcodes), so it never travels in a
// call, a task or a record.
func toolUnlockPhone() toolDef {
	return newDeviceTool[tools.NoArgs, tools.UnlockResult]("unlock_phone",
		"Wake and unlock the phone with the passcode its node is configured with. If it fails, do not retry: wrong passcodes lock the phone out.",
		action(false)) // not idempotent: a retry after a wrong passcode counts towards the lockout
}
