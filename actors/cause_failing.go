package actors

import "github.com/corral-farm/corral/broker"

// Failing says whether the cause fails its task rather than aborting it (the node stopping
// under it, its device gone): an agent task words its report and status by it (nodes/agent).
func (c *cause) Failing() bool { return c.outcome == broker.OutcomeFailed }
