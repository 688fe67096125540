package console

import "time"

// GridBuilds is how many grids c has built: the long poll tests of package console_test (which
// start a whole farm, and so cannot be in this package) count them.
func GridBuilds(c *Console) uint64 { return c.gridBuilds.Load() }

// SetLongPoll bounds c's long polls of the grid to d; before c serves.
func SetLongPoll(c *Console, d time.Duration) { c.longPoll = d }
