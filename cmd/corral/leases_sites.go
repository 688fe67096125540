package main

import (
	"context"
	"time"

	"github.com/corral-farm/corral/broker"
)

// sitesReadWithin bounds how long the command line's front door reads which edge sites are cut
// off, once a list: a hub that does not answer by then leaves the list without the note.
const sitesReadWithin = 2 * time.Second

// SitesDown names the edge sites whose link to the hub is down, for list_leases' note and
// get_task_result's (docs/operations.md, During a cut). The command line's client watches no
// site (a hub gateway watches its --sites), so it reads from the hub's stores which sites
// they hear nothing from (broker.SitesUnheard): without it, `corral leases` over NATS during
// a cut listed the other sites' leases as if they were all, and said nothing of the cut one.
// At a site, or a farm without sites, the stores source none: none is named.
func (f *cliFarm) SitesDown() []string {
	if down := f.Client.SitesDown(); len(down) > 0 {
		return down
	}
	ctx, cancel := context.WithTimeout(context.Background(), sitesReadWithin)
	defer cancel()
	// What could not be read leaves those sites out: the note is a help, the list is the answer.
	down, _ := broker.SitesUnheard(ctx, f.js)
	return down
}
