package broker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// What a hub's gateway tells its callers about a node it cannot reach. A node at an edge site
// whose link is down looks, from the hub, like a lost node: no heartbeat, no responders. But
// the site goes on alone (docs/operations.md, During a cut): its node keeps every lease and
// runs its tasks. So when the hub's SiteWatch says the node's site is cut off, the caller is
// told that, not that the node is lost and its leases revoked. Only the words change: the hub
// routes nothing there either way.

// siteCutOff is the cause of a call to a node at a cut-off site: ErrSiteCutOff, and
// ErrNodeLost to callers that handle a lost node (they stop waiting, abort nothing).
type siteCutOff struct{}

func (siteCutOff) Error() string { return ErrSiteCutOff.Error() }

func (siteCutOff) Is(target error) bool { return target == ErrSiteCutOff || target == ErrNodeLost }

// siteAdvice is what to do about a cut-off site's device.
const siteAdvice = "retry when the link is back (corral_site_up), or call the site's gateway"

// lostErr is the error of a call to a node declared lost, before the call or during it.
func (c *Client) lostErr(ctx context.Context, node string, during bool) error {
	when := "is"
	if during {
		when = "was"
	}
	if site, cut := c.opts.Sites.CutOff(ctx, node); cut {
		if during {
			return fmt.Errorf("node %s at site %s became unreachable from the hub during the call (the site's link is down): %w; "+
				"its leases are still held at the site; the task goes on there only if the link is back within 3 s: "+
				"else its node aborts it as it does any call whose caller went away (caller_gone; an agent task runs on); %s", node, site, siteCutOff{}, siteAdvice)
		}
		return unreachableErr(node, site)
	}
	if at, ok := c.live.stoppedAt(node); ok {
		return stoppedErr(node, at, during)
	}
	what := "lost"
	if during {
		what = "lost during the call"
	}
	if down := c.opts.Sites.Down(); len(down) > 0 {
		// A node the watch has not seen at any site yet (it joined since the last heal).
		return fmt.Errorf("node %s %s %s (no heartbeat for %s): %w; if it is at %s, whose link to the hub is down, "+
			"it keeps its leases and tasks there (%s); otherwise its devices are offline and their leases revoked",
			node, when, what, c.live.lostAfter, ErrNodeLost, siteList(down), siteAdvice)
	}
	return fmt.Errorf("node %s %s %s (no heartbeat for %s): %w; its devices are offline and their leases revoked", node, when, what, c.live.lostAfter, ErrNodeLost)
}

// nodeStopped is the error of a call to a node that said it stopped (its down event): not a
// loss, but ErrNodeLost to callers that handle one (they stop waiting, abort nothing).
type nodeStopped struct{ msg string }

func (e nodeStopped) Error() string { return e.msg }

func (nodeStopped) Is(target error) bool { return target == ErrNodeLost }

// stoppedErr is the error of a call to a node that stopped cleanly, at (when it said so).
func stoppedErr(node string, at time.Time, during bool) error {
	when := ""
	if during {
		when = " during the call"
	}
	return nodeStopped{fmt.Sprintf("node %s stopped%s (it said so at %s); its devices are offline until it starts again",
		node, when, at.UTC().Format(time.RFC3339))}
}

// unreachableErr is the error of a call to a node at a cut-off site, made after the cut.
func unreachableErr(node, site string) error {
	return fmt.Errorf("node %s at site %s is unreachable from the hub (the site's link is down): %w; "+
		"its leases are still held at the site, which runs its tasks meanwhile; %s", node, site, siteCutOff{}, siteAdvice)
}

// noRespondersErr is the error of a request that no one took: the node is stopped or
// restarting, or its site is cut off (siteUnreached: the request never reached the site).
func (c *Client) noRespondersErr(ctx context.Context, node, subject string) error {
	if site, cut := c.opts.Sites.CutOff(ctx, node); cut {
		return siteUnreached{site: site, error: unreachableErr(node, site)}
	}
	if site, ok := c.opts.Sites.SiteOf(node); ok {
		return fmt.Errorf("node %s at site %s does not answer on %s (no responders): it is stopped or restarting, or the site's link is down "+
			"(corral_site_up; the site keeps its leases then); retry in a few seconds or pick another device", node, site, subject)
	}
	return fmt.Errorf("node %s does not answer on %s (no responders): it is stopped or restarting; retry in a few seconds or pick another device", node, subject)
}

// offlineWhy is why a task on an offline device is refused.
func (c *Client) offlineWhy(ctx context.Context, dev DeviceEntry) string {
	if site, cut := c.opts.Sites.CutOff(ctx, dev.Node); cut {
		return cutOffWhy(dev.Serial, site)
	}
	return fmt.Sprintf("device %s is offline (%s); pick another device from list_available_devices", dev.Serial, dev.Reason)
}

// cutOffWhy is why a task on a device at a cut-off site is refused.
func cutOffWhy(serial, site string) string {
	return fmt.Sprintf("device %s is at site %s, unreachable from the hub (the site's link is down): "+
		"its lease, if any, is still held at the site, which runs its tasks meanwhile; %s", serial, site, siteAdvice)
}

// siteUnreached is the error of a request that no one took at a node of a cut-off site (no
// responders): it never reached the site. It is unreachableErr to callers of other requests.
type siteUnreached struct {
	error
	site string
}

func (e siteUnreached) Unwrap() error { return e.error }

// refusedUnreached is the answer to task req, sent to dev, whose request never reached dev's
// cut-off site (err from the request, siteUnreached): refused offline, as later calls are
// once the hub gives the site's node up, not lost: nothing ran and no record will come.
func refusedUnreached(dev DeviceEntry, req TaskRequest, err error) (TaskResult, bool) {
	var u siteUnreached
	if !errors.As(err, &u) {
		return TaskResult{}, false
	}
	return TaskResult{V: WireVersion, ID: req.ID, Serial: req.Serial, Node: dev.Node, Tool: req.Tool, Outcome: OutcomeRefused, Code: CodeOffline,
		Error: cutOffWhy(req.Serial, u.site)}, true
}

// PartialError is the error of an answer gathered from every node when some could not be
// asked or did not answer: the answer holds the others'.
type PartialError struct {
	// Missing says why each node left out is (node → why).
	Missing map[string]error
	// Newer are the nodes not asked as they speak a newer wire version, said once for all.
	Newer *NewerNodesError
}

func (e *PartialError) Error() string {
	var b strings.Builder
	b.WriteString("not every node answered; the list lacks what these hold: ")
	for i, node := range slices.Sorted(maps.Keys(e.Missing)) {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(e.Missing[node].Error())
	}
	if e.Newer != nil {
		if len(e.Missing) > 0 {
			b.WriteString("; ")
		}
		b.WriteString(e.Newer.Error())
	}
	return b.String()
}

// partial is the error of an answer from every live node but those that failed (node → why)
// and those skipped for their newer wire version (node → version): nil when none were. Nodes already lost, a cut-off site's among them, are not asked, as
// before: the callers that count leases (max_devices) go on without them.
func partial(failed map[string]error, skipped map[string]int) error {
	if len(failed) == 0 && len(skipped) == 0 {
		return nil
	}
	e := &PartialError{Missing: failed}
	if len(skipped) > 0 {
		e.Newer = &NewerNodesError{Nodes: skipped}
	}
	return e
}

// SitesDown names the edge sites whose link to this hub is down, sorted (none but at a hub).
func (c *Client) SitesDown() []string { return c.opts.Sites.Down() }

// siteUnheardAfter is how long the hub's sources of a site must all have heard nothing from it
// for SitesUnheard to call its link down: nats-server's source consumers send a heartbeat
// every second while the link carries them, so three missed in a row.
const siteUnheardAfter = 3 * time.Second

// SitesUnheard names the edge sites the hub's stores (read through js) source but whose every
// source has heard nothing from the site for siteUnheardAfter, or never: sites whose link is
// down, sorted. It is how a process that watches no site (the CLI's front door: a gateway's
// watch probes its --sites, which an operator may not) learns of a cut, from what an operator
// may read: the stores' stream info. A cut is seen about 3 s after it, and a healed link
// within seconds (once nats-server's sources hear the site again). A store not there is
// skipped; an error says which could not be read, with the sites found in the others.
func SitesUnheard(ctx context.Context, js jetstream.JetStream) ([]string, error) {
	heard := map[string]bool{} // site → a source of it heard it lately
	err := sourcesOfSites(ctx, js, func(_, site string, src *jetstream.StreamSourceInfo) {
		heard[site] = heard[site] || heardWithin(src, siteUnheardAfter)
	})
	var down []string
	for site, ok := range heard {
		if !ok {
			down = append(down, site)
		}
	}
	slices.Sort(down)
	if err != nil {
		return down, fmt.Errorf("which edge sites are cut off is not known: %w; check the NATS user may read stream info", err)
	}
	return down, nil
}

// sourcesOfSites calls each with every source of an edge site of the hub's sourced stores,
// read through js, its stream and its site. A store not there is skipped; the error says which
// could not be read.
func sourcesOfSites(ctx context.Context, js jetstream.JetStream, each func(stream, site string, src *jetstream.StreamSourceInfo)) error {
	var errs []error
	for _, stream := range sourcedStreams() {
		s, err := js.Stream(ctx, stream)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("read %s's sources: %w", stream, err))
			continue
		}
		for _, src := range s.CachedInfo().Sources {
			if src == nil || src.External == nil {
				continue
			}
			if site, ok := siteOfAPI(src.External.APIPrefix); ok {
				each(stream, site, src)
			}
		}
	}
	return errors.Join(errs...)
}

// heardWithin says whether a source heard its site within d (Active is negative for one that
// never did).
func heardWithin(src *jetstream.StreamSourceInfo, d time.Duration) bool {
	return src.Active >= 0 && src.Active <= d
}

// siteList names sites for a sentence: "site paris", "sites lyon, paris".
func siteList(sites []string) string {
	if len(sites) == 1 {
		return "site " + sites[0]
	}
	return "sites " + strings.Join(sites, ", ")
}

// SiteOf says which edge site node is at, as this hub's site watch has seen ("" and false at
// a gateway that watches no site, or for a node at the hub).
func (c *Client) SiteOf(node string) (string, bool) { return c.opts.Sites.SiteOf(node) }
