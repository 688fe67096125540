package wda

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxResponse bounds the body of one answer. A screenshot of the largest iPad is about 10 MiB of
// base64; anything near the bound is not a WebDriverAgent answer.
const MaxResponse = 64 << 20

// Bounds on the strings an error carries, so a hostile answer cannot make log lines huge.
const (
	maxCode    = 64
	maxMessage = 2048
)

// decodeEnvelope checks one answer, {"value": …, "sessionId": …}, and returns its value and
// session id ("" for null). An error value, whatever the HTTP status, is an *Error; anything
// else that is not WebDriverAgent's wraps ErrBadAnswer.
func decodeEnvelope(status int, body []byte) (json.RawMessage, string, error) {
	var env struct {
		Value     json.RawMessage `json:"value"`
		SessionID json.RawMessage `json:"sessionId"`
		Status    json.RawMessage `json:"status"` // JSONWP, before W3C: 0 is success
	}
	if !isObject(body) {
		return nil, "", badAnswer(status, body, "the body is not a JSON object")
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, "", badAnswer(status, body, "the body is not JSON ("+err.Error()+")")
	}
	if e := decodeError(status, env.Value); e != nil {
		return nil, "", e
	}
	if e := legacyError(status, env.Status, env.Value); e != nil {
		return nil, "", e
	}
	if status < 200 || status > 299 {
		return nil, "", badAnswer(status, body, "a failure status without a WebDriverAgent error")
	}
	if env.Value == nil {
		return nil, "", badAnswer(status, body, `the answer has no "value"`)
	}
	sid, err := decodeSessionID(env.SessionID)
	if err != nil {
		return nil, "", err
	}
	return env.Value, sid, nil
}

// decodeError returns the *Error a value holds, {"error": CODE, "message": …}, or nil.
func decodeError(status int, value json.RawMessage) *Error {
	if !isObject(value) {
		return nil
	}
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal(value, &v) != nil {
		return nil
	}
	var code, msg string
	if json.Unmarshal(v.Error, &code) != nil || code == "" {
		return nil
	}
	_ = json.Unmarshal(v.Message, &msg) // a message of another type is left out
	return &Error{HTTPStatus: status, Code: clip(code, maxCode), Message: clip(msg, maxMessage)}
}

// legacyError turns a JSONWP status (a non-zero number) into an *Error, for WebDriverAgents
// older than the W3C protocol.
func legacyError(status int, st, value json.RawMessage) *Error {
	var n json.Number
	if len(st) == 0 || json.Unmarshal(st, &n) != nil || n == "0" {
		return nil
	}
	code := "unknown error"
	switch n {
	case "6":
		code = "invalid session id"
	case "9":
		code = "unknown command"
	}
	var msg string
	if json.Unmarshal(value, &msg) != nil {
		msg = ""
	}
	return &Error{HTTPStatus: status, Code: code, Message: clip("JSONWP status "+string(n)+" "+msg, maxMessage)}
}

func decodeSessionID(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || isNull(raw) {
		return "", nil
	}
	var sid string
	if err := json.Unmarshal(raw, &sid); err != nil {
		return "", fmt.Errorf(`%w: "sessionId" is %s, want a string or null`, ErrBadAnswer, snippet(raw))
	}
	if sid != "" && !validSessionID(sid) {
		return "", fmt.Errorf(`%w: "sessionId" %s is not a session id`, ErrBadAnswer, snippet([]byte(sid)))
	}
	return sid, nil
}

// validSessionID allows what WebDriverAgent makes (a UUID) and what other servers might, but
// nothing that would change the path it is put into.
func validSessionID(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return s != "." && s != ".."
}

// decodeValue decodes a value that must be present (not null) into a T; what names it in errors.
func decodeValue[T any](v json.RawMessage, what string) (T, error) {
	var out T
	if len(v) == 0 || isNull(v) {
		return out, fmt.Errorf("%w: %s is null", ErrBadAnswer, what)
	}
	if err := json.Unmarshal(v, &out); err != nil {
		return out, fmt.Errorf("%w: %s: %s (got %s)", ErrBadAnswer, what, err, snippet(v))
	}
	return out, nil
}

// decodeNumber decodes a finite number in [lo, hi].
func decodeNumber(v json.RawMessage, what string, lo, hi float64) (float64, error) {
	n, err := decodeValue[json.Number](v, what)
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsNaN(f) || f < lo || f > hi {
		return 0, fmt.Errorf("%w: %s is %s, want a number from %g to %g", ErrBadAnswer, what, n, lo, hi)
	}
	return f, nil
}

// decodeInt decodes a whole number in [lo, hi] (WebDriverAgent may write 4 as 4.0).
func decodeInt(v json.RawMessage, what string, lo, hi int64) (int64, error) {
	f, err := decodeNumber(v, what, float64(lo), float64(hi))
	if err != nil {
		return 0, err
	}
	if f != math.Trunc(f) {
		return 0, fmt.Errorf("%w: %s is %g, want a whole number", ErrBadAnswer, what, f)
	}
	return int64(f), nil
}

// decodeSize decodes {"width": W, "height": H} in points.
func decodeSize(v json.RawMessage, what string) (w, h float64, err error) {
	s, err := decodeValue[struct {
		Width  json.RawMessage `json:"width"`
		Height json.RawMessage `json:"height"`
	}](v, what)
	if err != nil {
		return 0, 0, err
	}
	if w, err = decodeNumber(s.Width, what+".width", 0, maxPoints); err != nil {
		return 0, 0, err
	}
	if h, err = decodeNumber(s.Height, what+".height", 0, maxPoints); err != nil {
		return 0, 0, err
	}
	return w, h, nil
}

// maxPoints bounds a screen dimension in points; the largest iPad is 1376 points tall.
const maxPoints = 100000

func badAnswer(status int, body []byte, why string) error {
	return fmt.Errorf("%w: HTTP %d, %s: %s", ErrBadAnswer, status, why, snippet(body))
}

// snippet quotes the start of b for an error message.
func snippet(b []byte) string {
	const n = 120
	if len(b) > n {
		return strconv.Quote(strings.ToValidUTF8(string(b[:n]), "\uFFFD")) + "…"
	}
	return strconv.Quote(strings.ToValidUTF8(string(b), "\uFFFD"))
}

// clip makes s valid UTF-8 of at most n bytes.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isObject(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{'
}

func isNull(b []byte) bool { return string(bytes.TrimSpace(b)) == "null" }
