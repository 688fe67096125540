package model

import (
	"fmt"
	"strings"
)

// Where an API key can come from, as Config.KeySource names it; the key file's source is
// KeyFromFile followed by the file's path.
const (
	KeyFromFile      = "--openai-api-key-file"
	KeyFromCorralEnv = "CORRAL_OPENAI_API_KEY"
	KeyFromEnv       = "OPENAI_API_KEY"
)

// checkKey refuses a key that cannot go in an Authorization header, or that is two keys:
// Go's HTTP client would refuse every request without sending it ("invalid header field
// value"), so every task would fail. from names where the key came from; the key itself is
// never shown.
func checkKey(key, from string) error {
	if from == "" {
		from = "the API key"
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c == '\n' || c == '\r':
			return fmt.Errorf("%s holds more than one line: give it the API key alone, on one line", from)
		case c == ' ' || c == '\t':
			return fmt.Errorf("%s holds white space inside the key (at character %d): give it the API key alone", from, i+1)
		case c < 0x20 || c == 0x7f:
			return fmt.Errorf("%s holds a control character (at character %d): give it the API key alone, as plain text", from, i+1)
		case c > 0x7e:
			return fmt.Errorf("%s holds a character that is not plain ASCII (at character %d; a key copied from a web page "+
				"may bring a non-breaking space or a typographic dash): give it the API key alone, as plain text", from, i+1)
		}
	}
	return nil
}

// keyHint says how to fix a key the server refused: where the key that was sent came from,
// since setting OPENAI_API_KEY changes nothing when CORRAL_OPENAI_API_KEY or a key file
// goes before it.
func (c Config) keyHint() string {
	switch src := c.KeySource; {
	case strings.HasPrefix(src, KeyFromFile):
		return "fix the key in " + src + " (the key sent: the file goes before CORRAL_OPENAI_API_KEY and OPENAI_API_KEY)"
	case src == KeyFromCorralEnv:
		return "fix CORRAL_OPENAI_API_KEY (the key sent: it goes before OPENAI_API_KEY, which changes nothing while it is set)"
	case src == KeyFromEnv:
		return "fix OPENAI_API_KEY (the key sent), or give Corral its own in CORRAL_OPENAI_API_KEY or --openai-api-key-file"
	case src != "":
		return "fix the key in " + src
	}
	return "check the API key the node was given (--openai-api-key-file, else CORRAL_OPENAI_API_KEY, else OPENAI_API_KEY)"
}
