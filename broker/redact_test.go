package broker

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

func FuzzRedactJSON(f *testing.F) {
	f.Add([]byte(`{"text":"hunter2","n":1}`), "hunter2")
	f.Add([]byte(`["a","b"]`), "a")
	f.Add([]byte(`"\u0000x"`), "x")
	f.Fuzz(func(t *testing.T, data []byte, secret string) {
		// Secrets come out of decoded JSON arguments: valid UTF-8.
		if secret == "" || !utf8.ValidString(secret) || !json.Valid(data) {
			return
		}
		out := redactJSON(data, []string{secret})
		if len(out) == 0 {
			return
		}
		require.True(t, json.Valid(out), "redacted data is not JSON: %q", out)
		var v any
		require.NoError(t, json.Unmarshal(out, &v))
		assertNoSecret(t, v, secret)
	})
}

// assertNoSecret fails when a string value of v still holds secret.
func assertNoSecret(t *testing.T, v any, secret string) {
	switch v := v.(type) {
	case string:
		// Between the markers: a secret next to a marker may spell itself with the marker's
		// own characters ("x[" before "[redacted]"), which reveals nothing.
		for _, piece := range strings.Split(v, Redacted) {
			if strings.Contains(piece, secret) {
				t.Fatalf("secret %q left in %q", secret, v)
			}
		}
	case []any:
		for _, x := range v {
			assertNoSecret(t, x, secret)
		}
	case map[string]any:
		for _, x := range v {
			assertNoSecret(t, x, secret)
		}
	}
}
