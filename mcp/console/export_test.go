package console

import (
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// GridBuilds is how many grids c has built (corral_console_grids_built_total; c needs Metrics):
// the long poll tests of package console_test (which start a whole farm, and so cannot be in
// this package) count them.
func GridBuilds(c *Console) uint64 { return uint64(testutil.ToFloat64(c.cfg.Metrics.grids)) }

// SetLongPoll bounds c's long polls of the grid to d; before c serves.
func SetLongPoll(c *Console, d time.Duration) { c.longPoll = d }
