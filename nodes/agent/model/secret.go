package model

import (
	"fmt"
	"log/slog"
)

const redacted = "[redacted]"

// Secret holds an API key so that it cannot leak by accident: it prints, marshals (JSON and
// text) and logs as "[redacted]". Only Reveal gives the key back. The key sits behind a
// pointer because fmt prints an unexported field's contents without calling its methods:
// behind a pointer it shows only an address.
type Secret struct {
	key *string
}

// NewSecret wraps key.
func NewSecret(key string) Secret {
	if key == "" {
		return Secret{}
	}
	return Secret{key: &key}
}

// Reveal returns the key, for the Authorization header and nothing else.
func (s Secret) Reveal() string {
	if s.key == nil {
		return ""
	}
	return *s.key
}

// IsSet says whether there is a key.
func (s Secret) IsSet() bool { return s.Reveal() != "" }

func (s Secret) String() string   { return s.mask() }
func (s Secret) GoString() string { return `model.Secret("` + s.mask() + `")` }

// Format covers every verb, so %x or %q cannot show the key either.
func (s Secret) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(s.mask())) }

func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + s.mask() + `"`), nil }
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.mask()), nil }
func (s Secret) LogValue() slog.Value         { return slog.StringValue(s.mask()) }

// mask says whether a key is set without showing it; "" when none, so configs read plainly.
func (s Secret) mask() string {
	if !s.IsSet() {
		return ""
	}
	return redacted
}
