package broker

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// nats-server keeps where each source of a stream stands under the source's index name, which
// holds its filters: a source given other filters is a new one to it, started at its
// OptStartSeq. So a source whose filters change (sites_sources_scope.go), or that is re-added
// before it took anything under them (kickSources), is started after the last of its site's
// messages that the hub's stream holds, read from the stamp nats-server puts on each.

// streamSourceHeader is nats-server's stamp on a sourced message: "<stream>:<origin> <sequence
// at the origin> <filters> <transforms> <subject>", origin a hash of the external API prefix.
const streamSourceHeader = "Nats-Stream-Source"

// lastTakenBatch is how many headers lastTaken asks for at once.
const lastTakenBatch = 256

// lastTaken is the highest sequence of site's stream among the messages the hub's stream
// holds from it under subjects (all of them when none), 0 when it holds none. It reads their
// headers only; a stamp of a nats-server before 2.10 names no site and is passed over.
func lastTaken(ctx context.Context, js jetstream.JetStream, stream, site string, subjects []string) (uint64, error) {
	// The server drops the consumer soon after the last batch (no delete: ordered consumers have none).
	c, err := js.OrderedConsumer(ctx, stream, jetstream.OrderedConsumerConfig{FilterSubjects: subjects, HeadersOnly: true,
		InactiveThreshold: 10 * time.Second})
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", stream, err)
	}
	info, err := c.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", stream, err)
	}
	origin := stream + ":" + serverHash(siteAPI(site))
	var last uint64
	for left := info.NumPending; left > 0; {
		batch, err := c.Fetch(int(min(left, lastTakenBatch)), jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			return 0, fmt.Errorf("read %s: %w", stream, err)
		}
		got := 0
		for m := range batch.Messages() {
			got++
			fields := strings.Fields(m.Headers().Get(streamSourceHeader))
			if len(fields) < 2 || fields[0] != origin {
				continue
			}
			if seq, err := strconv.ParseUint(fields[1], 10, 64); err == nil {
				last = max(last, seq)
			}
		}
		if err := batch.Error(); err != nil {
			return 0, fmt.Errorf("read %s: %w", stream, err)
		}
		if got == 0 {
			return 0, fmt.Errorf("read %s: %d messages not delivered", stream, left)
		}
		left -= uint64(got)
	}
	return last, nil
}

// serverHash is nats-server's hash of a name (server/events.go getHash), with which it names a
// source's origin in its stamp: 8 characters of base 62 from the name's SHA-256.
func serverHash(name string) string {
	const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	sum := sha256.Sum256([]byte(name))
	out := make([]byte, 8)
	for i := range out {
		out[i] = digits[int(sum[i]%62)]
	}
	return string(out)
}

// resumeAt is where a source of site whose position nats-server does not know starts: after the
// last of the site's messages under subjects the hub's stream holds (lastTaken); when it holds
// none, at the first of the site's records younger than maxAge (siteStart). The error says the
// site could not be read for that: the start is then the site's first.
func resumeAt(ctx context.Context, js jetstream.JetStream, stream, site string, subjects []string, maxAge time.Duration) (uint64, error) {
	last, err := lastTaken(ctx, js, stream, site, subjects)
	if err != nil {
		return 0, err
	}
	if last > 0 {
		return last + 1, nil
	}
	start, err := siteStart(ctx, js.Conn(), site, stream, maxAge)
	if err != nil {
		return 1, &siteUnreadError{err}
	}
	return start, nil
}

// siteUnreadError is resumeAt's: the site could not be read, the start is its first record.
type siteUnreadError struct{ err error }

func (e *siteUnreadError) Error() string { return e.err.Error() }
func (e *siteUnreadError) Unwrap() error { return e.err }
