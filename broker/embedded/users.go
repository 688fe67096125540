package embedded

import (
	"cmp"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// leafConnection is nats-server's name of a leaf node connection (jwt.ConnectionTypeLeafnode).
const leafConnection = "LEAFNODE"

// User is a client the server accepts: a name, a password and what it may do.
type User struct {
	Name, Password string
	Permissions    Permissions
	// Leaf makes it a site's leaf user (a hub's, leaf.go): it may connect as a leaf node only,
	// and its permissions say what the site may send (publish) and take (subscribe).
	Leaf bool
}

// Permissions are a user's subject permissions: the fields of broker.Permissions, so that one
// converts to the other (embedded.Permissions(p)). This package does not import broker, whose
// tests start embedded servers.
type Permissions struct {
	PublishAllow, PublishDeny     []string
	SubscribeAllow, SubscribeDeny []string
	AllowResponses                bool
	ResponseWindow                time.Duration // 0: nats-server's default, 2 minutes
}

// ResponseExpires is how long a user with AllowResponses may answer a request: ResponseWindow,
// else nats-server's default.
func (p Permissions) ResponseExpires() time.Duration {
	return cmp.Or(p.ResponseWindow, server.DEFAULT_ALLOW_RESPONSE_EXPIRATION)
}

// serverUsers turns users into nats-server users.
func serverUsers(users []User) []*server.User {
	out := make([]*server.User, 0, len(users))
	for _, u := range users {
		p := u.Permissions
		if p.PublishAllow == nil {
			// An empty allow list allows nothing (broker.Permissions); nats-server reads a nil
			// one as no list at all, which allows everything.
			p.PublishAllow = []string{}
		}
		sp := &server.Permissions{
			Publish:   &server.SubjectPermission{Allow: p.PublishAllow, Deny: p.PublishDeny},
			Subscribe: &server.SubjectPermission{Allow: p.SubscribeAllow, Deny: p.SubscribeDeny},
		}
		if p.AllowResponses {
			sp.Response = &server.ResponsePermission{MaxMsgs: 1, Expires: p.ResponseExpires()}
		}
		su := &server.User{Username: u.Name, Password: u.Password, Permissions: sp}
		if u.Leaf {
			su.AllowedConnectionTypes = map[string]struct{}{leafConnection: {}}
		}
		out = append(out, su)
	}
	return out
}
