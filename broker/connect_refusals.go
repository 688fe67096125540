package broker

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"
)

// NATS refuses a publish or a subscription it does not permit asynchronously: the server sends
// -ERR on the connection and the request that needed it just waits for its deadline. Refusals
// ties the two: a connection made with ConnectOptions.Refusals hands each refusal to it, and
// every context it watches ends at once, its cause a *RefusedError naming the subject. A
// command line (one connection, one thing to do) fails at once instead of after its --timeout.

// Refusals passes a connection's permission refusals to the contexts that watch it.
type Refusals struct {
	mu      sync.Mutex
	next    int
	cancels map[int]context.CancelCauseFunc
	first   *RefusedError
}

// NewRefusals returns a Refusals to give one connection (ConnectOptions.Refusals).
func NewRefusals() *Refusals {
	return &Refusals{cancels: map[int]context.CancelCauseFunc{}}
}

// Watch returns a context that ends when ctx does, or at the connection's first refusal (then
// context.Cause is its *RefusedError); stop releases it.
func (r *Refusals) Watch(ctx context.Context) (_ context.Context, stop context.CancelFunc) {
	wctx, cancel := context.WithCancelCause(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.first != nil {
		cancel(r.first)
		return wctx, func() {}
	}
	id := r.next
	r.next++
	r.cancels[id] = cancel
	return wctx, func() {
		r.mu.Lock()
		delete(r.cancels, id)
		r.mu.Unlock()
		cancel(context.Canceled)
	}
}

// Refused is the connection's first refusal, nil if none.
func (r *Refusals) Refused() *RefusedError {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.first
}

// refuse ends every watching context with e as its cause.
func (r *Refusals) refuse(e *RefusedError) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.first == nil {
		r.first = e
	}
	for id, cancel := range r.cancels {
		cancel(r.first)
		delete(r.cancels, id)
	}
}

// RefusedError is NATS refusing a user a subject.
type RefusedError struct {
	User    string // the NATS user, "" when unknown
	Role    Role   // its role, "" when unknown
	Op      string // "publish to" or "subscribe to"
	Subject string
	// Stale says that this Corral's permissions of the role allow what the server refused: the
	// server's users were made by another Corral version.
	Stale bool
	// OtherNode says that the role may do it for another node id: a node user, or a node's
	// context, of another node than the one that asked.
	OtherNode bool
	// Reply says that it was the answer to a request, on the requester's inbox: a user may
	// answer a request it received (allow_responses) but the server forgets the requests it
	// delivered when the connection is made again, so the answer to one received before a
	// reconnection (a NATS restart) is refused.
	Reply bool
	err   error // nats.go's
}

func (e *RefusedError) Error() string {
	who := "this NATS user"
	if e.User != "" {
		who = fmt.Sprintf("NATS user %q", e.User)
	}
	what := fmt.Sprintf("NATS refused to let %s %s %q", who, e.Op, e.Subject)
	if e.Stale {
		return what + fmt.Sprintf(", which this Corral's %s role may do: the NATS server's users are from another Corral version; "+
			"run corral nats-auth again and reload nats-server, or restart corral up (docs/operations.md, Upgrades and version skew)", e.Role)
	}
	if e.Reply {
		return what + ": the answer to a request received before the connection to NATS was made again could not be sent " +
			"(NATS lets an answer through only to a request it delivered on the same connection); a task's caller gets the " +
			"task's record instead, another request's caller no answer (it retries or times out)"
	}
	if e.OtherNode {
		return what + ": a node's NATS user may do this for its own node id only; use the NATS context of the node it is for " +
			"(docs/operations.md, NATS roles)"
	}
	hint := "use the NATS context of a role that may (docs/operations.md, NATS roles)"
	if strings.HasPrefix(e.Subject, Prefix+".node.") {
		hint = "node requests need the admin or gateway role (docs/operations.md, NATS roles)"
	}
	return what + ": this NATS user's role may not do this; " + hint
}

func (e *RefusedError) Unwrap() error { return e.err }

var violationRE = regexp.MustCompile(`(?i)permissions violation for (publish|subscription) to "([^"]+)"`)

// refusalOf reads nats.go's permission error as a RefusedError of user; nil for other errors.
func refusalOf(user string, err error) *RefusedError {
	if !errors.Is(err, nats.ErrPermissionViolation) {
		return nil
	}
	e := &RefusedError{User: user, Op: "publish to", Subject: "?", err: err}
	if m := violationRE.FindStringSubmatch(err.Error()); m != nil {
		e.Subject = m[2]
		if strings.EqualFold(m[1], "subscription") {
			e.Op = "subscribe to"
		}
	}
	e.Reply = e.Op == "publish to" && strings.HasPrefix(e.Subject, "_INBOX")
	role, node, ok := RoleOfUser(user)
	if !ok {
		return e
	}
	e.Role = role
	if e.Subject == "?" {
		return e
	}
	e.Stale = rolePermits(role, node, e.Op, e.Subject)
	e.OtherNode = !e.Stale && role == RoleNode && node != AnyNode && rolePermits(role, AnyNode, e.Op, e.Subject)
	return e
}

// rolePermits says whether this Corral's permissions of role (for node) let op on subject.
func rolePermits(role Role, node, op, subject string) bool {
	p, err := PermissionsFor(role, node)
	if err != nil {
		return false
	}
	if op == "publish to" {
		return permits(p.PublishAllow, p.PublishDeny, subject)
	}
	return permits(p.SubscribeAllow, p.SubscribeDeny, subject)
}

// RoleOfUser is the role (and node id, or site) of a NATS user named as UserName names them.
func RoleOfUser(user string) (Role, string, bool) {
	switch {
	case user == "":
		return "", "", false
	case user == string(RoleNode):
		return RoleNode, AnyNode, true
	case strings.HasPrefix(user, "node-"):
		return RoleNode, strings.TrimPrefix(user, "node-"), true
	case slices.Contains(Roles, Role(user)):
		return Role(user), "", true
	}
	return "", "", false
}

// permits says whether permissions with these allow and deny lists let subject through, as
// nats-server decides it: an allow entry covers it and no deny entry does. Entries may carry a
// queue group after a space; it is ignored.
func permits(allow, deny []string, subject string) bool {
	covers := func(list []string) bool {
		return slices.ContainsFunc(list, func(p string) bool { return subjectCovers(strings.Fields(p)[0], subject) })
	}
	return covers(allow) && !covers(deny)
}

// subjectCovers says whether pattern (with * and > wildcards) covers subject, every subject
// subject's own wildcards stand for.
func subjectCovers(pattern, subject string) bool {
	p, s := strings.Split(pattern, "."), strings.Split(subject, ".")
	for i, tok := range p {
		if tok == ">" {
			return len(s) > i
		}
		if i >= len(s) || (tok != "*" && tok != s[i]) || (tok == "*" && s[i] == ">") {
			return false
		}
	}
	return len(p) == len(s)
}

// watchRefusalOf returns a context that ends when ctx does, or as soon as NATS refuses nc's user
// a subject that watched matches (then context.Cause is its *RefusedError), for a connection made
// without Refusals (a node's, a gateway's). Such a refusal is the caller's error to tell, so the
// connection's error handler is not told it too; it is told everything else, and is alone again
// after stop.
func watchRefusalOf(ctx context.Context, nc *nats.Conn, watched func(subject string) bool) (_ context.Context, stop func()) {
	refusals := NewRefusals()
	wctx, stopWatch := refusals.Watch(ctx)
	before, user := nc.ErrorHandler(), nc.Opts.User
	nc.SetErrorHandler(func(c *nats.Conn, sub *nats.Subscription, err error) {
		if r := refusalOf(user, err); r != nil && watched(r.Subject) {
			refusals.refuse(r)
			return
		}
		if before != nil {
			before(c, sub, err)
		}
	})
	return wctx, func() {
		nc.SetErrorHandler(before)
		stopWatch()
	}
}
