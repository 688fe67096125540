package model

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/corral-farm/corral/internal/redact"
)

// keyPlace is where an API key goes instead of a URL.
const keyPlace = "put the API key in OPENAI_API_KEY or --openai-api-key-file"

// checkBaseURL refuses a base URL that carries anything besides the API root: a key in its
// query (Azure's ?api-key=) or user info would be printed in every log line and error that
// names the endpoint, and go-openai appends paths to the whole string, so a query would end
// up in the middle of the path (POST /v1?api-key=…/chat/completions).
func checkBaseURL(u *url.URL, raw string) error {
	shown := redactURL(raw)
	switch {
	case u.User != nil:
		return fmt.Errorf("model base URL %s holds a user name or password, which would show wherever the endpoint is named: "+
			"drop it from OPENAI_BASE_URL or --openai-base-url and %s", shown, keyPlace)
	case u.RawQuery != "" || u.ForceQuery:
		return fmt.Errorf("model base URL %s has a query string (?…): a base URL carries no query, as request paths are added to its end: "+
			"drop it from OPENAI_BASE_URL or --openai-base-url, and %s", shown, keyPlace)
	case u.Fragment != "" || strings.HasSuffix(raw, "#"):
		return fmt.Errorf("model base URL %s has a fragment (#…): a base URL carries none: drop it from OPENAI_BASE_URL or --openai-base-url", shown)
	}
	return nil
}

// redactURL hides what in a URL may be a secret: the user info (http://user:pass@host: some
// put a key in the user name), the query's values (Azure's ?api-key=) and the fragment.
// checkBaseURL refuses all three in a base URL; this is the second line of defence, for
// messages about a URL not yet checked. Each is shown as redact.Mark, the word NATS URLs' show.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	if u.User != nil {
		u.User = url.User(redact.Mark)
	}
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, p := range parts {
			name, _, hasValue := strings.Cut(p, "=")
			if hasValue && safeQueryName(name) {
				parts[i] = name + "=" + redact.Mark
			} else {
				parts[i] = redact.Mark // a bare ?sk-… is all value
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	if u.Fragment != "" {
		u.Fragment, u.RawFragment = redact.Mark, ""
	}
	return u.String()
}

// safeQueryName says whether a query parameter's name may be shown: a short plain word, as
// api-key or api-version is, not a key pasted where the name goes.
func safeQueryName(name string) bool {
	if name == "" || len(name) > 32 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}
