package tools

import (
	"encoding/json"
	"slices"

	"github.com/corral-farm/corral/broker"
)

// A login endpoint's answer is its caller's: it is often the session itself
// ({"access_token": …}), which whoever reads task records (the operator role, every principal
// allowed on the device, for the event stream's 7 days) could then use. The record keeps what
// says how the login went without the session: the status, the answer's size and, of a JSON
// object, its top-level keys (an error field, a token field: what came), never their values.

// LoginRecorded is what the task record keeps of the login endpoint's answer.
type LoginRecorded struct {
	OK     bool   `json:"ok"`
	Status int    `json:"status"`
	Body   string `json:"body"` // broker.Redacted: left out, as a secret argument is
	// BodyBytes is the answer's size; BodyKeys the top-level keys of a JSON object answer,
	// sorted, at most maxRecordedKeys of them, each cut to maxRecordedKeyRunes.
	BodyBytes int      `json:"bodyBytes"`
	BodyKeys  []string `json:"bodyKeys,omitempty"`
}

// loginRecordResult is web_login_none_ui's result as its record keeps it.
type loginRecordResult struct {
	Message     string        `json:"message"`
	LoginResult LoginRecorded `json:"loginResult"`
	Hint        string        `json:"hint,omitempty"`
}

const (
	maxRecordedKeys     = 20
	maxRecordedKeyRunes = 64
)

// loginRecord is what the record keeps of done, whose answer's body was text.
func loginRecord(done LoginResult, text string) loginRecordResult {
	rec := LoginRecorded{OK: done.LoginResult.OK, Status: done.LoginResult.Status, Body: broker.Redacted, BodyBytes: len(text)}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &obj) == nil {
		for k := range obj {
			rec.BodyKeys = append(rec.BodyKeys, clipRunes(k, maxRecordedKeyRunes))
		}
		slices.Sort(rec.BodyKeys)
		if len(rec.BodyKeys) > maxRecordedKeys {
			rec.BodyKeys = rec.BodyKeys[:maxRecordedKeys]
		}
	}
	return loginRecordResult{Message: done.Message, LoginResult: rec, Hint: done.Hint}
}
