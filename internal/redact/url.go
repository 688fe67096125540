package redact

import (
	"net/url"
	"strings"
	"unicode"
)

// A URL's user part (user:password@, token@) is found here without url.Parse: a URL it
// refuses is still shown (nats.go quotes one whole in its error; a browser device names the
// URL it refused), and a password may hold '/', '?' or '#', which url.Parse takes for the
// end of the host.

// SplitUserinfo splits the text of one URL around its user part: the text between the
// scheme's "://" (or the start, for a URL without one) and the URL's last '@'. Leading space
// goes with before (nats.go trims each URL).
func SplitUserinfo(u string) (before, info, after string, ok bool) {
	at := strings.LastIndexByte(u, '@')
	if at < 0 {
		return "", "", "", false
	}
	start := len(u) - len(strings.TrimLeftFunc(u, unicode.IsSpace))
	if i := strings.Index(u[start:at], "://"); i >= 0 && isScheme(u[start:start+i]) {
		start += i + len("://")
	}
	return u[:start], u[start:at], u[at:], true
}

// isScheme says whether s can be a URL scheme (RFC 3986): else the "://" is in a password.
func isScheme(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')
	}) < 0
}

// Userinfo is a user part as errors and logs show it: the user kept, its password (or a
// token, a user part without one) replaced by Mark.
func Userinfo(info string) string {
	if user, _, ok := strings.Cut(info, ":"); ok {
		return user + ":" + Mark
	}
	return Mark
}

// URL is the text of one URL, which need not parse, with its user part shown by Userinfo.
func URL(u string) string {
	if before, info, after, ok := SplitUserinfo(u); ok {
		return before + Userinfo(info) + after
	}
	return u
}

// URLs is a comma-separated list of URLs (NATS's server list, as nats.go splits it) with each
// shown by URL: an error or a log line never carries a secret, of URLs that do not parse too.
func URLs(urls string) string {
	parts := strings.Split(urls, ",")
	for i, p := range parts {
		parts[i] = URL(p)
	}
	return strings.Join(parts, ",")
}

// HasUserinfo says whether a URL of a comma-separated list carries a user part (user:password@,
// token@): what URLs hides, found the same way.
func HasUserinfo(urls string) bool {
	for p := range strings.SplitSeq(urls, ",") {
		if _, info, _, ok := SplitUserinfo(p); ok && info != "" {
			return true
		}
	}
	return false
}

// UserOfPair is the user of a user part that pairs it with a password (user:password), ""
// for a lone token, which is a secret as a whole. Percent escapes are read as url.Parse reads
// them; a user whose escapes do not read is shown as written.
func UserOfPair(info string) string {
	user, _, ok := strings.Cut(info, ":")
	if !ok {
		return ""
	}
	if u, err := url.PathUnescape(user); err == nil {
		return u
	}
	return user
}
