package broker

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Replies. A stream whose subjects take a user's inbox holds every reply that user gets, and
// a node's NATS user may create one so (streams_repair.go). The answers to a gateway's own
// requests at its start, before its repairs, landed there (a QA pass counted 24: the info of
// every store). So the first JetStream request of a gateway's start asks which streams take
// its inbox, and each loses those subjects before anything else is asked. That one answer
// still lands in them (no request's answer can be kept out of a stream that takes its reply
// subject): it holds those streams' own info, which a node may read of the stores it may make.

// inboxSubjects are the subjects of the replies nc gets.
func inboxSubjects(nc *nats.Conn) string {
	return cmp.Or(nc.Opts.InboxPrefix, strings.TrimSuffix(nats.InboxPrefix, ".")) + ".>"
}

// stopCaptures removes inbox from the subjects of every stream whose subjects take it, saying at
// WARN what it removed; a stream it may not change (not Corral's) fails the start.
func stopCaptures(ctx context.Context, js jetstream.JetStream, inbox string, log *slog.Logger) error {
	var capturing []jetstream.StreamConfig
	list := js.ListStreams(ctx, jetstream.WithStreamListSubject(inbox))
	for info := range list.Info() {
		capturing = append(capturing, info.Config)
	}
	if err := refusedOr(ctx, list.Err()); err != nil {
		return fmt.Errorf("streams whose subjects take this process's replies (%s): %w", inbox, err)
	}
	for _, cfg := range capturing {
		taken := slices.DeleteFunc(slices.Clone(cfg.Subjects), func(s string) bool { return !subjectsCollide(s, inbox) })
		cfg.Subjects = slices.DeleteFunc(cfg.Subjects, func(s string) bool { return subjectsCollide(s, inbox) })
		if _, err := js.UpdateStream(ctx, cfg); err != nil {
			err = refusedOr(ctx, err)
			return fmt.Errorf("stream %s takes this process's replies (subjects %s), which it may not change: %w; whoever runs the NATS "+
				"server removes those subjects or the stream (`nats stream rm %s`), then start again", cfg.Name, strings.Join(taken, " "), err, cfg.Name)
		}
		log.Warn("store repaired: its subjects took this process's replies, which let a NATS user read what it may not; removed "+
			"(a node's NATS user may create this store: look for the node that made it)", "stream", cfg.Name, "removed", "subjects "+strings.Join(taken, " "))
	}
	return nil
}

// refusedOr is NATS's refusal of a request (watchRefusalOf), which ended it, or else err.
func refusedOr(ctx context.Context, err error) error {
	if r, ok := context.Cause(ctx).(*RefusedError); ok && err != nil {
		return r
	}
	return err
}

// subjectsCollide says whether some subject matches both a and b, wildcards and all.
func subjectsCollide(a, b string) bool {
	at, bt := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(at) && i < len(bt); i++ {
		switch {
		case at[i] == ">" || bt[i] == ">":
			return true
		case at[i] != bt[i] && at[i] != "*" && bt[i] != "*":
			return false
		}
	}
	return len(at) == len(bt)
}
