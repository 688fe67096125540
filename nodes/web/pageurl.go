package web

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/corral-farm/corral/internal/redact"
)

// pageURL parses raw as a URL a browser device opens: http or https, with a host the node
// allows. hint says what to pass instead of a URL that is not one; a bare host (example.org)
// is answered with its https:// URL too.
func (d *Driver) pageURL(op, raw, hint string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		shown := redact.URL(raw) // a URL that does not parse shows no password either
		if err == nil && u.User != nil {
			shown = shownURL(u) // no password of a user:password@ URL in errors
		}
		if g, err := url.Parse("https://" + raw); err == nil && g.Host != "" && !strings.Contains(raw, "://") &&
			!strings.ContainsAny(raw, " \t\r\n") {
			if _, ok := g.User.Password(); ok {
				shown = strings.TrimPrefix(shownURL(g), "https://") // user:pw@host parses as scheme "user"
			}
			hint += fmt.Sprintf("; give the whole URL, e.g. %q", shownURL(g))
		}
		return nil, d.wrap(op, fmt.Errorf("%w: %q", ErrBadURL, shown), hint)
	}
	if !d.allow.Allows(u.Hostname()) {
		return nil, d.wrap(op, fmt.Errorf("%w: %s", ErrBlocked, u.Hostname()), "the node allows "+d.allow.String())
	}
	return u, nil
}
