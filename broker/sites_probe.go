package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
)

// A site's probe asks its JetStream for its account's information: any answer means the link
// carries requests both ways, and no responders (the leaf connection closed) that it is down.
// No answer within siteProbeTimeout is the site's silence only if this process's own server
// then answers a round trip, the guard Liveness has (liveness_probe.go): a hub gateway whose
// server stalls hears no site either, and that silence is its own. The round trip also reads
// what the server sent before it, so an answer that came in time but was not read in time
// (this process's goroutines not run, under load) still counts as one.

// errOwnSilence marks a probe whose site did not answer while this process's own server did
// not either: it says nothing of the site's link.
var errOwnSilence = errors.New("this process's own NATS server did not answer either: the silence is this process's, not the site's")

// probe asks site whether its link is up: nil if it answered, an error wrapping
// errOwnSilence if the silence is this process's own (own remembers its server's answers
// and logs to log), another error if the link is down.
func (w *SiteWatch) probe(ctx context.Context, site string, own *ownServer, log *slog.Logger) error {
	answers := make(chan *nats.Msg, 1)
	sub, err := w.nc.ChanSubscribe(w.nc.NewInbox(), answers)
	if err != nil {
		return fmt.Errorf("probe site %s: %w", site, err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := w.nc.PublishRequest(siteAPI(site)+".INFO", sub.Subject, nil); err != nil {
		return fmt.Errorf("probe site %s: %w", site, err)
	}
	timeout := time.NewTimer(siteProbeTimeout)
	defer timeout.Stop()
	select {
	case m := <-answers:
		own.heard(log, time.Now()) // it came through this process's server
		return siteAnswer(m)
	case <-ctx.Done():
		return ctx.Err()
	case <-timeout.C:
	}
	answered, back := own.answers(w.roundTrip, log, time.Now())
	select {
	case m := <-answers: // there in time, read late
		return siteAnswer(m)
	default:
	}
	if !answered || !back.IsZero() {
		return fmt.Errorf("site %s did not answer within %s: %w", site, siteProbeTimeout, errOwnSilence)
	}
	return fmt.Errorf("site %s did not answer within %s: %w", site, siteProbeTimeout, nats.ErrTimeout)
}

// siteAnswer is what a site's answer to a probe says of its link: nil for an answer, an
// error for no responders.
func siteAnswer(m *nats.Msg) error {
	if len(m.Data) == 0 && m.Header.Get("Status") == "503" {
		return nats.ErrNoResponders
	}
	return nil
}
