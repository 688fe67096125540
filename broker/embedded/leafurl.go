package embedded

import (
	"log/slog"
	"strings"

	secret "github.com/corral-farm/corral/internal/redact"
)

// A hub URL may carry the site's leaf user and password (nats-leaf://leaf-paris:PW@hub:7422),
// which nats-server uses when LeafRemoteOptions names no user, or a token (nats-leaf://TOKEN@hub).
// The start warns of them, as a client's --nats-url is warned of (broker/connect_urlwarn.go),
// showing the URL redacted. Its user part is found by redact (secret here), as every URL's
// secret is, not by url.Parse: a password or token with '?', '#' or '/' in it ends url.Parse's
// host early, and the URL then seems to carry none.

// urlUser is the user of the first of urls whose user part pairs a user with a password, ""
// when none does: a lone user part is a token, a secret as a whole, never named.
func urlUser(urls []string) string {
	for _, raw := range urls {
		if _, info, _, ok := secret.SplitUserinfo(strings.TrimSpace(raw)); ok {
			if user := secret.UserOfPair(info); user != "" {
				return user
			}
		}
	}
	return ""
}

// warnHubURLCredentials warns when r's hub URLs carry credentials, naming where they came from
// (r.CredentialsFlag): a flag (--hub) on a command line, which other users of the machine read
// (ps); else the variable or config file key that gave them (CORRAL_HUB), where they are still
// in a URL, which tools print and child processes inherit, not in a secret's place.
func warnHubURLCredentials(r *LeafRemoteOptions, log *slog.Logger) {
	if r == nil || r.CredentialsFlag == "" {
		return
	}
	urls := strings.Join(r.URLs, ",")
	if !secret.HasUserinfo(urls) {
		return
	}
	const instead = "give them in --hub-context instead (the hub's DATA/nats/leaf-SITE.json)"
	if strings.HasPrefix(r.CredentialsFlag, "--") {
		log.Warn("the hub URL carries credentials: on a command line ("+r.CredentialsFlag+") other users of this machine can read them (ps); "+
			instead, "url", secret.URLs(urls))
		return
	}
	log.Warn("the hub URL from "+r.CredentialsFlag+" carries credentials: a URL is no place for a secret "+
		"(tools print URLs, child processes inherit the environment); "+instead, "url", secret.URLs(urls))
}
