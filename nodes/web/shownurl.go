package web

import (
	"net/url"

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
