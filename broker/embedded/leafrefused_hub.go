package embedded

import (
	"fmt"
	"strings"
	"time"
)

// A hub refuses a site whose leaf password is not its own (most often one from before the
// hub's data directory was made anew), and nats-server logs "authentication error" at ERROR at
// each of the site's attempts, every second or two for as long as the site runs. The hub's log
// says what to do instead, once per leaf user and then every leafRefusedRepeat with the
// refusals since (leafrefused.go); the server's own lines go to debug.

// hubLeafRefusal is what a hub's server logs when it refuses a leaf connection:
// "ADDR - lid:N - authentication error - User "NAME"", without the user when none was given.
const hubLeafRefusal = "authentication error"

// hubLeafRefused says whether a server error is a hub refusing a leaf connection, and with
// which user ("" when the site gave none) and from where.
func hubLeafRefused(msg string) (user, from string, ok bool) {
	from, rest, found := strings.Cut(msg, " - lid:")
	if !found {
		return "", "", false
	}
	_, rest, found = strings.Cut(rest, " - ")
	if !found || !strings.HasPrefix(rest, hubLeafRefusal) {
		return "", "", false
	}
	if name, ok := strings.CutPrefix(strings.TrimPrefix(rest, hubLeafRefusal), ` - User "`); ok {
		user = strings.TrimSuffix(name, `"`) // nats-server names a user so; an nkey, a JWT otherwise
	}
	return user, from, true
}

// hubLeafHint is what a hub logs when it refuses a leaf connection as user, and the site it
// names ("" when it names none): leafUsers are the hub's leaf users. It names the file the
// site needs, never a password.
func hubLeafHint(user string, leafUsers map[string]bool) (msg, site string) {
	site, _ = strings.CutPrefix(user, "leaf-")
	switch {
	case user == "":
		return "the hub refused a leaf connection that gave no user: a site connects as its leaf user; " +
			"copy DATA/nats/leaf-SITE.json from the hub to the site and start it with --hub-context pointing at it; " +
			"a site that asks for TLS (ca in its --hub-context), which this hub's leaf port does not take, gives none either: drop ca there", ""
	case !leafUsers[user]:
		return fmt.Sprintf("the hub refused a leaf connection as user %s, which is no leaf user of this hub: "+
			"each site of --sites gets one, leaf-SITE; name the site in the hub's --sites (with --leaf-listen), "+
			"then copy DATA/nats/leaf-SITE.json from the hub to the site", user), ""
	case user == "leaf":
		return "the hub refused a site's leaf connection as the leaf user shared by every site: the site's leaf credentials do not match: " +
			"copy DATA/nats/leaf.json from the hub again and restart the site with --hub-context pointing at it", ""
	}
	return fmt.Sprintf("the hub refused site %s's leaf connection: the site's leaf credentials do not match: "+
		"copy DATA/nats/%s.json from the hub again and restart the site with --hub-context pointing at it", site, user), site
}

// sayHubLeafRefused logs the hint of user's refusal at the first one and at the first one each
// leafRefusedRepeat after, with how many came since it was last said.
func (l *serverLog) sayHubLeafRefused(user, from string) {
	l.mu.Lock()
	r := l.hubRefusals[user]
	if r == nil {
		r = &refusals{}
		l.hubRefusals[user] = r
	}
	n, say := r.count(l.now(), leafRefusedRepeat)
	l.mu.Unlock()
	if !say {
		return
	}
	msg, site := hubLeafHint(user, l.hubLeafUsers)
	l.log.Error(msg, "site", site, "user", user, "from", from, "refusals", n, "again_in", leafRefusedRepeat)
}

// refusals are refusals since they were last said, and when that was.
type refusals struct {
	saidAt time.Time
	n      int
}

// count counts one more refusal at now and says whether to say them (the first, and the first
// each every after), with how many came since they were last said.
func (r *refusals) count(now time.Time, every time.Duration) (n int, say bool) {
	r.n++
	if !r.saidAt.IsZero() && now.Sub(r.saidAt) < every {
		return 0, false
	}
	n = r.n
	r.saidAt, r.n = now, 0
	return n, true
}

// hubLeafUsers are the leaf users of a hub's server (one that takes leaf connections), by name;
// nil for a server that takes none.
func hubLeafUsers(opts Options) map[string]bool {
	if opts.LeafListen == nil {
		return nil
	}
	users := map[string]bool{}
	for _, u := range opts.Users {
		if u.Leaf {
			users[u.Name] = true
		}
	}
	return users
}
