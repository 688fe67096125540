package embedded

import (
	"log/slog"
	"net/url"
	"strings"

	secret "github.com/corral-farm/corral/internal/redact"
)

// A hub URL may carry the site's leaf user and password (nats-leaf://leaf-paris:PW@hub:7422),
// which nats-server uses when LeafRemoteOptions names no user. On a command line (--hub) other
// users of the machine read them (ps): the start warns of it, as a client's --nats-url is
// warned of (broker/connect_urlwarn.go), showing the URL redacted.

// urlUser is the user the first of urls that carries one names, "" when none does.
func urlUser(urls []string) string {
	for _, raw := range urls {
		if u, err := url.Parse(strings.TrimSpace(raw)); err == nil && u.User != nil && u.User.Username() != "" {
			return u.User.Username()
		}
	}
	return ""
}

// warnHubURLCredentials warns when r's hub URLs carry credentials given on a command line.
func warnHubURLCredentials(r *LeafRemoteOptions, log *slog.Logger) {
	if r == nil || r.CredentialsFlag == "" || urlUser(r.URLs) == "" {
		return
	}
	shown := make([]string, len(r.URLs))
	for i, u := range r.URLs {
		shown[i] = secret.URL(u)
	}
	log.Warn("the hub URL carries credentials: on a command line ("+r.CredentialsFlag+") other users of this machine can read them (ps); "+
		"give them in --hub-context instead (the hub's DATA/nats/leaf-SITE.json)", "url", strings.Join(shown, ","))
}
