package broker

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/redact"
)

func TestRecordRedactsSecrets(t *testing.T) {
	res := TaskResult{
		Outcome: OutcomeSucceeded,
		Text:    "typed hunter2<ok>",
		Error:   `adb: input text "hunter2" failed`,
		Data:    json.RawMessage(`{"message":"typed 7 characters","text":"hunter2","n":12345678901234567890,"steps":[{"m":"x hunter2 y"}],"hunter2":1}`),
		Image:   []byte{1},
		Secrets: []string{"hunter2", ""},
	}
	rec := res.Record()
	assert.Nil(t, rec.Image)
	assert.Nil(t, rec.Secrets)
	assert.Equal(t, "typed [redacted]<ok>", rec.Text)
	assert.Equal(t, `adb: input text "[redacted]" failed`, rec.Error)
	// String values only: keys and numbers stay as they were, and < is not escaped.
	assert.JSONEq(t, `{"message":"typed 7 characters","text":"[redacted]","n":12345678901234567890,"steps":[{"m":"x [redacted] y"}],"hunter2":1}`, string(rec.Data))
	// The caller's own answer keeps what it typed.
	assert.Contains(t, string(res.Data), `"text":"hunter2"`)

	// A secret that needs escaping in JSON is found as the decoded string.
	rec = TaskResult{Data: json.RawMessage(`{"text":"a\"b\\c\u00e9"}`), Secrets: []string{"a\"b\\cé"}}.Record()
	assert.JSONEq(t, `{"text":"[redacted]"}`, string(rec.Data))

	// Data that does not decode is dropped, not kept with the secret in it.
	rec = TaskResult{Data: json.RawMessage(`{"text":"hunter2"`), Secrets: []string{"hunter2"}}.Record()
	assert.Empty(t, rec.Data)
}

// A record's data after redaction: JSON still; no string value that is the secret, whatever
// its length; no secret of redact.AnywhereRunes runes or more left in any string (one with a
// character no key or name holds, so none keeps it); and data that holds no secret unchanged.
func FuzzRedactJSON(f *testing.F) {
	f.Add([]byte(`{"text":"hunter2","n":1}`), "hunter2")
	f.Add([]byte(`["a","b"]`), "a")
	f.Add([]byte(`"\u0000x"`), "x")
	f.Add([]byte(`{"hint":"peek to check the text","message":"typed 1 characters","text":"e"}`), "e")
	f.Add([]byte(`{"text":"correct horse","steps":[{"m":"typed xcorrect horsex"}]}`), "correct horse")
	f.Fuzz(func(t *testing.T, data []byte, secret string) {
		// Secrets come out of decoded JSON arguments: valid UTF-8.
		if secret == "" || !utf8.ValidString(secret) || !json.Valid(data) ||
			strings.Contains(secret, Redacted) {
			return
		}
		out := redactJSON(data, redact.NewSecrets(Redacted, []string{secret}))
		if len(out) == 0 {
			return
		}
		require.True(t, json.Valid(out), "redacted data is not JSON: %q", out)
		var in, v any
		require.NoError(t, json.Unmarshal(data, &in))
		require.NoError(t, json.Unmarshal(out, &v))
		if !strings.ContainsAny(secret, "&<>\"'\\\t\n\r") && !holdsSecret(in, secret) {
			assert.Equal(t, in, v, "data without the secret is changed")
		}
		long := utf8.RuneCountInString(secret) >= redact.AnywhereRunes && strings.ContainsFunc(secret, notInNames)
		assertNoSecret(t, v, secret, long)
	})
}

// notInNames says whether no JSON key, task id or lease handle can hold r, so that a secret
// with it is taken out wherever it stands.
func notInNames(r rune) bool {
	return !(r == '_' || r == '-' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
}

// holdsSecret says whether a string value of v holds secret.
func holdsSecret(v any, secret string) bool {
	switch v := v.(type) {
	case string:
		return strings.Contains(v, secret)
	case []any:
		return slices.ContainsFunc(v, func(x any) bool { return holdsSecret(x, secret) })
	case map[string]any:
		for _, x := range v {
			if holdsSecret(x, secret) {
				return true
			}
		}
	}
	return false
}

// assertNoSecret fails when a string value of v is secret, or, when long, still holds it.
func assertNoSecret(t *testing.T, v any, secret string, long bool) {
	switch v := v.(type) {
	case string:
		if v == secret {
			t.Fatalf("secret %q left as a whole value", secret)
		}
		// Between the markers: a secret next to a marker may spell itself with the marker's
		// own characters ("x[" before "[redacted]"), which reveals nothing.
		for _, piece := range strings.Split(v, Redacted) {
			if long && strings.Contains(piece, secret) {
				t.Fatalf("secret %q left in %q", secret, v)
			}
		}
	case []any:
		for _, x := range v {
			assertNoSecret(t, x, secret, long)
		}
	case map[string]any:
		for _, x := range v {
			assertNoSecret(t, x, secret, long)
		}
	}
}
