package broker

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// A lease handle is its holder's secret; the lease's granted event carries only its hash
// (Event.HandleSHA256). A holder that passes a handle alone, once nothing holds the lease
// (its node was lost and restarted, and the gateways' lease mirror cleared), is found the
// lease's device by that hash among the recent grants of the event stream, read newest first
// in windows of sequences that grow backwards, as task history is (history.go).

// GrantQuery bounds the search of LeaseGrant.
type GrantQuery struct {
	HandleSHA256 string    // HandleHash of the handle sought
	Since        time.Time // no grant stored before this is read
	MaxScan      int       // nor more than this many grants, the newest (at least 1)
}

// LeaseGrant finds the granted event of the lease whose handle hashes to q.HandleSHA256, with
// the device's serial and node; found is false when none of the grants read has it (a lease
// of an older Corral, whose grant carries no hash; an older grant than q reads; none at all).
func (c *Client) LeaseGrant(ctx context.Context, q GrantQuery) (ev Event, found bool, err error) {
	return c.stores.leaseGrant(ctx, q)
}

func (s *Stores) leaseGrant(ctx context.Context, q GrantQuery) (Event, bool, error) {
	if q.HandleSHA256 == "" || s.Events == nil {
		return Event{}, false, nil
	}
	info, err := s.Events.Info(ctx)
	if err != nil {
		return Event{}, false, fmt.Errorf("read stream %s: %w", EventStream, err)
	}
	first, last := info.State.FirstSeq, info.State.LastSeq
	if info.State.Msgs == 0 || last < first {
		return Event{}, false, nil
	}
	if !info.Config.AllowDirect {
		return Event{}, false, fmt.Errorf("read lease grants: stream %s allows no direct gets (Corral creates it so; was it made by hand?)", EventStream)
	}
	d, err := newDirectReader(s.JS.Conn(), EventStream)
	if err != nil {
		return Event{}, false, err
	}
	defer d.close()
	filter := fmt.Sprintf(EventLeaseT, "*", "*", "granted")
	if !q.Since.IsZero() {
		since, ok, err := d.firstSince(ctx, filter, q.Since)
		if err != nil || !ok {
			return Event{}, false, err
		}
		first = max(first, since)
	}
	maxScan := max(q.MaxScan, 1)
	scanned := 0
	span := uint64(1024) // sequences in the next window
	var seqs uint64      // sequences read so far
	for end := last; end >= first; {
		start := first
		if end-first+1 > span {
			start = end - span + 1
		}
		var grants []*jetstream.RawStreamMsg
		want := int(min(end-start+1, directBatch))
		if _, err := d.read(ctx, filter, start, end, want, 0, func(m *jetstream.RawStreamMsg) { grants = append(grants, m) }); err != nil {
			return Event{}, false, err
		}
		for i := len(grants) - 1; i >= 0; i-- {
			if scanned == maxScan {
				return Event{}, false, nil
			}
			scanned++
			if ev, ok := trustedGrant(grants[i]); ok && subtle.ConstantTimeCompare([]byte(ev.HandleSHA256), []byte(q.HandleSHA256)) == 1 {
				return ev, true, nil
			}
		}
		if start == first {
			break
		}
		// The next window reaches 4 times as far back, but not much past the grants MaxScan
		// still lets be read at the density met so far.
		seqs += end - start + 1
		span *= 4
		if scanned > 0 {
			perGrant := max(seqs/uint64(scanned), 1)
			span = min(span, max(1024, uint64(maxScan-scanned+1)*perGrant))
		}
		end = start - 1
	}
	return Event{}, false, nil
}

// trustedGrant reads a granted event, if the node its subject names wrote it of the device
// its subject names: a node publishes only its own lease events (auth.go).
func trustedGrant(m *jetstream.RawStreamMsg) (Event, bool) {
	rest, ok := strings.CutPrefix(m.Subject, Prefix+".events.lease.")
	if !ok {
		return Event{}, false
	}
	parts := strings.Split(rest, ".")
	var ev Event
	if len(parts) != 3 || json.Unmarshal(m.Data, &ev) != nil {
		return Event{}, false
	}
	if ev.Kind != "lease" || ev.What != "granted" || ev.Node != parts[0] || ev.Serial == "" || Token(ev.Serial) != parts[1] {
		return Event{}, false
	}
	return ev, true
}
