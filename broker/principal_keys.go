package broker

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// All of a principal's keys in SessionBucket start "p.<principal tag>.", so that each kind can
// be counted and bounded per principal (trimOldest): its sessions' entries and its sessionless
// callers' selections ("p.<tag>.<id>", sessions_per_principal.go), the marks of the sessions it
// ended ("p.<tag>.e.<session>", session_end.go) and its latest tasks ("p.<tag>.l.<who>",
// latest.go). Before, ended marks and latest tasks were keyed by session or holder alone, and
// one principal's DELETEs or tasks could grow the bucket past any bound.

const (
	endedPart  = "e." // a principal's ended marks
	latestPart = "l." // a principal's latest tasks
)

// UnderPrincipal names id (a session, a held selection, or whose latest task) under
// principal: as a session to SessionDevice, UpdateSessionDevice, EndSession and SessionEnded,
// as who to LatestTask and SetLatestTask, it keys the entry under the principal's prefix.
func UnderPrincipal(principal, id string) string { return PrincipalPrefix(principal) + id }

// PrincipalPrefix starts every key of principal's: UnderPrincipal(principal, id) is it and id.
// Its tag is a hash, which a gateway computes once per principal, not on each call.
func PrincipalPrefix(principal string) string {
	return principalSessionsPrefix + PrincipalTag(principal) + "."
}

// cutPrincipalKey splits k, an id under a principal (UnderPrincipal), into the principal's
// prefix ("p.<tag>.") and the id.
func cutPrincipalKey(k string) (prefix, id string, ok bool) {
	rest, ok := strings.CutPrefix(k, principalSessionsPrefix)
	if !ok {
		return "", "", false
	}
	tag, id, ok := strings.Cut(rest, ".")
	if !ok || len(tag) != 16 || !validToken(tag) {
		return "", "", false
	}
	return k[:len(principalSessionsPrefix)+len(tag)+1], id, true
}

// trimOldest drops the oldest keys of the bucket matching prefix+"*" (by last write) beyond
// keep and returns them, each given to note before it goes. It counts them with a consumer's
// pending count (one small answer, whatever their number), lists the oldest, and drops them
// with one purge that keeps the newest keep and those written since the count began: two
// gateways trimming at once keep keep between them, not one fewer each, and a key written
// meanwhile stays (their notes may then name one that stays, until the next trim). It kept
// keep alone before, and a key written between the count and the purge made it drop one
// unnoted: that session was told only "serial is required", without why.
func (c *Client) trimOldest(ctx context.Context, prefix string, keep int, note func(key string) error) ([]string, error) {
	if keep < 1 {
		return nil, fmt.Errorf("keep %d: a principal keeps at least one", keep)
	}
	stream, keyed := kvStream(SessionBucket), "$KV."+SessionBucket+"."
	filter := keyed + prefix + "*"
	s, err := c.stores.JS.Stream(ctx, stream) // its last sequence before the count
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", stream, err)
	}
	counted := s.CachedInfo().State.LastSeq
	cons, err := c.stores.JS.CreateConsumer(ctx, stream, jetstream.ConsumerConfig{
		FilterSubject: filter, DeliverPolicy: jetstream.DeliverLastPerSubjectPolicy,
		AckPolicy: jetstream.AckNonePolicy, MemoryStorage: true, InactiveThreshold: consumerIdle,
	})
	if err != nil {
		return nil, fmt.Errorf("counting %s*: %w", prefix, err)
	}
	held := int(cons.CachedInfo().NumPending)
	_ = c.stores.JS.DeleteConsumer(context.WithoutCancel(ctx), stream, cons.CachedInfo().Name) // else it goes when idle
	if held <= keep {
		return nil, nil
	}
	oldest, err := listFrom(ctx, s, filter, 1, held-keep)
	if err != nil {
		return nil, fmt.Errorf("reading the oldest of %s*: %w", prefix, err)
	}
	for i, m := range oldest {
		oldest[i] = strings.TrimPrefix(m, keyed)
		if err := note(oldest[i]); err != nil {
			return nil, err
		}
	}
	since, err := listFrom(ctx, s, filter, counted+1, held) // more: kept all the same
	if err != nil {
		return nil, fmt.Errorf("reading the newest of %s*: %w", prefix, err)
	}
	if _, err := c.purgeSessions(ctx, purgeRequest{Filter: filter, Keep: uint64(keep + len(since))}); err != nil {
		return nil, fmt.Errorf("dropping the oldest of %s*: %w", prefix, err)
	}
	return oldest, nil
}

// listFrom lists the subjects of s's messages on filter from sequence seq on, at most most.
func listFrom(ctx context.Context, s jetstream.Stream, filter string, seq uint64, most int) ([]string, error) {
	var subjects []string
	for len(subjects) < most {
		m, err := s.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(filter))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			break // none left
		}
		if err != nil {
			return nil, err
		}
		subjects, seq = append(subjects, m.Subject), m.Sequence+1
	}
	return subjects, nil
}

// purgeOldest drops the oldest keys of the bucket matching prefix+"*" (by last write) beyond
// keep, and says how many went: keys no one is told of (latest tasks, ended marks) need no
// count nor list first, and one purge that keeps the newest keep costs one request, where a
// counting consumer cost two and the server a consumer made and deleted.
func (c *Client) purgeOldest(ctx context.Context, prefix string, keep int) (int, error) {
	if keep < 1 {
		return 0, fmt.Errorf("keep %d: a principal keeps at least one", keep)
	}
	return c.purgeSessions(ctx, purgeRequest{Filter: "$KV." + SessionBucket + "." + prefix + "*", Keep: uint64(keep)})
}
