package web

import (
	"net/url"
	"strings"

	"github.com/corral-farm/corral/internal/redact"
)

// shownURL is u as errors show it: the password of a user:password@ URL replaced by
// redact.Mark, the word the rest of Corral hides a secret with (url.URL.Redacted's is xxxxx,
// which an operator grepping for hidden secrets would miss).
func shownURL(u *url.URL) string {
	if _, ok := u.User.Password(); !ok {
		return u.String()
	}
	c := *u
	c.User = url.UserPassword(u.User.Username(), redact.Mark)
	return c.String()
}

// shownText is raw, text url.Parse refused, with what may be a password (from the user part's
// ':' to its '@') as redact.Mark: a URL that does not parse is shown as typed otherwise.
func shownText(raw string) string {
	at := strings.LastIndexByte(raw, '@')
	if at < 0 {
		return raw
	}
	start := 0
	if i := strings.Index(raw[:at], "://"); i >= 0 {
		start = i + len("://")
	}
	colon := strings.IndexByte(raw[start:at], ':')
	if colon < 0 {
		return raw
	}
	return raw[:start+colon+1] + redact.Mark + raw[at:]
}
