package broker

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	secret "github.com/corral-farm/corral/internal/redact" // broker has a redact func of its own
)

// NATS URLs may carry credentials (nats://user:password@host, nats://token@host); their user
// part is found by redact's SplitUserinfo (secret here), which needs no url.Parse. A comma
// separates servers, as nats.go splits them.

// RedactURLs returns a comma-separated list of NATS URLs with their passwords (and tokens in
// the user part) replaced, so that an error or a log line never carries a secret: URLs that do
// not parse too. It is redact's URLs, which the embedded server's packages use too.
func RedactURLs(urls string) string { return secret.URLs(urls) }

// hasCredentials says whether a URL of urls carries a user part.
func hasCredentials(urls string) bool { return secret.HasUserinfo(urls) }

// redactIn replaces, in text (an error's), each URL of urls that carries credentials, as
// given and as %q quotes it, by the URL as RedactURLs shows it: from its user part on, so that
// a URL quoted without its scheme is replaced too. Not the user part alone: a short password or
// token is also a piece of the error's own words, and replacing it there would mangle them and
// show what the secret is. (url.Parse's errors, which quote pieces of a URL, are
// hideParseError's.)
func redactIn(text, urls string) string {
	for p := range strings.SplitSeq(urls, ",") {
		_, info, after, ok := secret.SplitUserinfo(strings.TrimSpace(p))
		if !ok || info == "" {
			continue
		}
		given, shown := info+after, secret.Userinfo(info)+after
		text = strings.ReplaceAll(text, given, shown)
		if q := strconv.Quote(given); q[1:len(q)-1] != given {
			text = strings.ReplaceAll(text, q[1:len(q)-1], shown)
		}
	}
	return text
}

// urlCredentials is what the URLs give nats.go to log in with, which it prefers to
// ConnectOptions' user: the user of the first URL with a user and password, or whether one
// carries a token (a user part without a password).
func urlCredentials(urls string) (user string, token bool) {
	for p := range strings.SplitSeq(urls, ",") {
		u, err := ParseURL(p)
		if err != nil || u.User == nil {
			continue
		}
		if _, ok := u.User.Password(); ok {
			return u.User.Username(), false
		}
		token = true
	}
	return "", token
}

// ParseURL parses one URL of a NATS server list as nats.go reads it: trimmed, and nats:// when
// it names no scheme. Its error quotes nothing of a URL with credentials (hideParseError);
// show the URL itself with RedactURLs.
func ParseURL(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "://") {
		s = "nats://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, hideParseError(err, s)
	}
	return u, nil
}

// redactedError is an error whose text had the URLs' secrets replaced; it unwraps to the
// original (errors.Is still finds nats.ErrAuthorization), which only a caller that prints an
// unwrapped error would show.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redactErr returns err with the secrets of urls taken out of its text.
func redactErr(err error, urls string) error {
	msg := redactIn(err.Error(), urls)
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

// quotedRE finds the strings url.Parse's errors quote: fragments of the URL.
var quotedRE = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// hideParseError returns url.Parse's error (nats.go's for a URL it cannot read) about urls
// without the fragments of the URL it quotes, when a URL carries credentials: a password with a
// '#' in it ends the URL at the '#', and what is left of it is quoted as the port ("invalid
// port \":hun\" after host").
func hideParseError(err error, urls string) error {
	var ue *url.Error
	if !hasCredentials(urls) || !errors.As(err, &ue) {
		return err
	}
	return fmt.Errorf("the URL does not parse: %s", quotedRE.ReplaceAllString(ue.Err.Error(), `"…"`))
}
