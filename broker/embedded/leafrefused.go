package embedded

import (
	"fmt"
	"strings"
	"time"
)

// A site whose hub refuses its leaf user (most often a password from before the hub's data
// directory was made anew) tries again every ReconnectEvery, and nats-server logs each refusal
// at ERROR with nothing an operator can act on. The site's log says what to do instead: once,
// then every leafRefusedRepeat while the refusals go on; the server's own lines go to debug.

// leafRefusedRepeat is how often a site says again that its hub refuses it.
const leafRefusedRepeat = 10 * time.Minute

// leafRefusedHint is what a site logs when its hub refuses its leaf user, "" for a server that
// is no site. It names the user and the file to copy, never the password.
func leafRefusedHint(r *LeafRemoteOptions, site string) string {
	switch {
	case r == nil:
		return ""
	case r.User != "":
		return fmt.Sprintf("the hub refused this site's leaf user %s: the password in --hub-context does not match the hub's; "+
			"copy the hub's DATA/nats/%s.json again (the hub writes it when it starts with --leaf-listen and --sites %s) "+
			"and restart this site with --hub-context pointing at it", r.User, r.User, site)
	case urlUser(r.URLs) != "":
		user := urlUser(r.URLs)
		return fmt.Sprintf("the hub refused this site's leaf user %s, given in the hub URL: its password there does not match the hub's; "+
			"copy the hub's DATA/nats/%s.json (the hub writes it when it starts with --leaf-listen and --sites %s) "+
			"and restart this site with --hub-context pointing at it, and no credentials in the URL", user, user, site)
	case r.CredsFile != "":
		return fmt.Sprintf("the hub refused this site's leaf credentials (%s): they are not a user of the hub's; "+
			"get site %s's leaf credentials from the hub's operator again", r.CredsFile, site)
	default:
		return fmt.Sprintf("the hub refused this site's leaf connection: it takes site %s only as its leaf user; "+
			"pass the hub's DATA/nats/leaf-%s.json with --hub-context", site, site)
	}
}

// leafRefused says whether a server error is the hub refusing this site's leaf connection.
func leafRefused(msg string) bool {
	return strings.Contains(msg, "Leafnode Error 'Authorization Violation'")
}

// sayLeafRefused logs hint at the first refusal and at the first one each leafRefusedRepeat
// after, with how many came since the last time it was said.
func (l *serverLog) sayLeafRefused(hint string) {
	l.mu.Lock()
	n, say := l.leafRefusals.count(l.now(), leafRefusedRepeat)
	l.mu.Unlock()
	if !say {
		return
	}
	l.log.Error(hint, "refusals", n, "again_in", leafRefusedRepeat)
}
