package redact

import "net/url"

// PageURL is the text of a URL as a browser device's results show it: with its password (a
// page's http://user:password@host/, basic auth) replaced by Mark, the user kept; a URL
// without one as written (url.URL.String may write it otherwise), and any other text, a
// package name, too. Text with a user part that url.Parse refuses is shown by URL.
func PageURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return URL(raw)
	}
	if _, ok := u.User.Password(); !ok {
		return raw
	}
	c := *u
	c.User = url.UserPassword(u.User.Username(), Mark)
	return c.String()
}
