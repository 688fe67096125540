package broker

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/corral-farm/corral/internal/redact"
)

// Redacted stands where a secret was.
const Redacted = "[redacted]"

// Record returns the result as kept in the event stream: without image bytes, with RecordData
// for Data when the tool set one, and without the task's secrets (data, summary, error) where
// redact.Secrets takes them out: a value that is the secret whatever its length (input's
// "text"), a quoted one, a word from 4 characters, any text from 8; not the letters of other
// words, which would garble the record and, around the marks, spell the secret out. The
// device's serial and the node's id stay whole.
func (r TaskResult) Record() TaskResult {
	r.Image = nil
	if r.RecordData != nil {
		r.Data, r.RecordData = r.RecordData, nil
	}
	if u := r.ErrorUnrecorded; u != nil {
		r.Error, r.ErrorUnrecorded = u.recorded(r.Error), nil
	}
	if len(r.Secrets) > 0 {
		s := redact.NewSecrets(Redacted, r.Secrets, r.Serial, r.Node)
		r.Text, r.Error = s.Hide(r.Text), s.Hide(r.Error)
		r.Data = redactJSON(r.Data, s)
	}
	r.Secrets = nil
	return r
}

// Unrecorded is a part of a task's error that only its caller may read, and what its record
// keeps instead (TaskResult.ErrorUnrecorded).
type Unrecorded struct {
	Text    string // as the caller reads it
	Instead string // as the record keeps it
}

// recorded is the error text errText as its record keeps it: the unrecorded part replaced
// wherever it stands (a scheduler's cause may precede it); all of it replaced when the part is
// not found as it was given, since errText may then hold it in other words.
func (u *Unrecorded) recorded(errText string) string {
	if u.Text != "" && strings.Contains(errText, u.Text) {
		return strings.ReplaceAll(errText, u.Text, u.Instead)
	}
	return u.Instead
}

// redactJSON takes the secrets out of the string values of data (never its keys or numbers);
// data that does not decode is dropped rather than kept with a secret in it.
func redactJSON(data json.RawMessage, s redact.Secrets) json.RawMessage {
	if len(data) == 0 {
		return data
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case string:
			return s.Hide(v)
		case []any:
			for i := range v {
				v[i] = walk(v[i])
			}
		case map[string]any:
			for k := range v {
				v[k] = walk(v[k])
			}
		}
		return v
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(walk(v)); err != nil {
		return nil
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
