package broker

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

// When a site's failed probes make a cut (sites.go, Link timing), in one place: the watch's
// probes and CutOff's go by it, so that a call is not told a site is cut off while the watch,
// patient during a link-up's catch-up, still holds its link up.

// siteMisses counts a site's probes that failed in a row.
type siteMisses int

// cut counts a failed probe and says whether the failures are now a cut: siteProbeFailures in
// a row are. One left unanswered for siteProbeTimeout is one at once outside a link-up's
// catch-up (healing false): a second wait would only put off a silent cut's notice. During a
// catch-up it would not: the site's answer may wait behind the catch-up's backlog.
func (m *siteMisses) cut(err error, healing bool) bool {
	*m++
	if errors.Is(err, nats.ErrTimeout) && !healing {
		*m = max(*m, siteProbeFailures)
	}
	return *m >= siteProbeFailures
}

// siteCatchUp is a site's last link-up and its catch-up, as its watch runs them.
type siteCatchUp struct {
	busy atomic.Int32 // the restores and source re-adds at work
	upAt atomic.Int64 // the last link-up, Unix nanoseconds; 0 before the first
}

// catchUp is site's catch-up, made at its first use.
func (w *SiteWatch) catchUp(site string) *siteCatchUp {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.catchUps == nil {
		w.catchUps = map[string]*siteCatchUp{}
	}
	c := w.catchUps[site]
	if c == nil {
		c = &siteCatchUp{}
		w.catchUps[site] = c
	}
	return c
}

// catchingUp says whether site's link-up's catch-up is at work now.
func (w *SiteWatch) catchingUp(site string) bool { return w.catchUp(site).busy.Load() > 0 }

// healing says whether a probe of site sent at sent, and finished now, overlapped its link-up's
// catch-up (busy: the catch-up was at work when it was sent) while the patience lasted: the
// link up, the probe sent less than w.patience after the link-up. Such a probe may have waited
// behind the catch-up.
func (w *SiteWatch) healing(site string, sent time.Time, busy bool) bool {
	c := w.catchUp(site)
	upAt := c.upAt.Load()
	return w.Up(site) && upAt != 0 && (busy || c.busy.Load() > 0) && sent.Before(time.Unix(0, upAt).Add(w.patience))
}
