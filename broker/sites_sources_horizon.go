package broker

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A source that holds none of its site's records starts at its OptStartSeq, and took the site's
// whole stream from 1: a site quiet for longer than the hub keeps events had the records the
// hub aged out brought back, stamped anew, pushing out the hub's own oldest. A re-added source
// starts instead at the first of the site's records younger than the hub stream's MaxAge.
// OptStartTime would not do: nats-server moves it up to the time of the hub stream's last
// message, whatever its origin, which skips a new site's records written before its link.

// siteStartTimeout bounds the reads of a site's stream that find where a source starts.
const siteStartTimeout = 2 * time.Second

// siteStart is the sequence of site's stream at which the hub's source of it starts when the
// hub holds none of its messages: 1 when the hub's stream keeps them for ever (maxAge 0),
// else the first younger than maxAge, or the one after the site's last when none is.
func siteStart(ctx context.Context, nc *nats.Conn, site, stream string, maxAge time.Duration) (uint64, error) {
	if maxAge <= 0 {
		return 1, nil
	}
	ctx, cancel := context.WithTimeout(ctx, siteStartTimeout)
	defer cancel()
	horizon := time.Now().Add(-maxAge).UTC()
	req, err := json.Marshal(struct {
		StartTime time.Time `json:"start_time"`
	}{horizon})
	if err != nil {
		return 0, err
	}
	m, err := nc.RequestWithContext(ctx, siteAPI(site)+".DIRECT.GET."+stream, req)
	if err != nil {
		return 0, fmt.Errorf("read site %s's %s from %s: %w", site, stream, horizon.Format(time.RFC3339), err)
	}
	if seq := m.Header.Get(jetstream.SequenceHeader); seq != "" {
		return strconv.ParseUint(seq, 10, 64)
	}
	if status := m.Header.Get("Status"); status != "404" {
		return 0, fmt.Errorf("read site %s's %s from %s: %s %s", site, stream, horizon.Format(time.RFC3339), status, m.Header.Get("Description"))
	}
	// Every record of the site's is older than the horizon: start after its last.
	js, err := jetstream.NewWithDomain(nc, site)
	if err != nil {
		return 0, err
	}
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return 0, fmt.Errorf("read site %s's %s: %w", site, stream, err)
	}
	return s.CachedInfo().State.LastSeq + 1, nil
}
