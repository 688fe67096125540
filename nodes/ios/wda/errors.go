package wda

import (
	"errors"
	"fmt"
)

// Error is an error WebDriverAgent reported, {"value":{"error":CODE,"message":MESSAGE}}, with the
// HTTP status it came with: 4xx or 5xx, or 200 when a WebDriverAgent put an error in a success.
type Error struct {
	HTTPStatus int
	Code       string // the W3C error code: "invalid session id", "unknown command", …
	Message    string
}

func (e *Error) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("%s (HTTP %d)", e.Code, e.HTTPStatus)
	}
	return fmt.Sprintf("%s (HTTP %d): %s", e.Code, e.HTTPStatus, e.Message)
}

// Is matches the sentinels below by code, so errors.Is(err, ErrInvalidSession) holds for any
// "invalid session id" whatever its status and message.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.HTTPStatus == 0 && t.Message == "" && t.Code == e.Code
}

// Sentinels for the WebDriverAgent error codes a caller may want to tell apart. Compare with
// errors.Is; errors.As gives the *Error with the status and message.
var (
	ErrInvalidSession      = &Error{Code: "invalid session id"}
	ErrUnknownCommand      = &Error{Code: "unknown command"}
	ErrInvalidArgument     = &Error{Code: "invalid argument"}
	ErrInvalidCoordinates  = &Error{Code: "invalid coordinates"}
	ErrInvalidElementState = &Error{Code: "invalid element state"}
	ErrUnknownError        = &Error{Code: "unknown error"}
)

// ErrBadAnswer is wrapped by every error about an answer that is not WebDriverAgent's: not JSON,
// truncated, too large, a value of the wrong type, a screenshot that is not a PNG, a source that
// is not XML.
var ErrBadAnswer = errors.New("not a WebDriverAgent answer")

// IsInvalidSession reports whether err says WebDriverAgent does not know the session, as after
// a restart.
func IsInvalidSession(err error) bool { return errors.Is(err, ErrInvalidSession) }

// hintFor says what to do about a failed call.
func hintFor(err error) string {
	switch {
	case errors.Is(err, ErrInvalidSession):
		return "WebDriverAgent no longer knows the session (it restarted, or another client replaced it); the next call creates a new one"
	case errors.Is(err, ErrUnknownCommand):
		return "this WebDriverAgent does not serve the route; update WebDriverAgent (appium/WebDriverAgent)"
	case errors.Is(err, ErrInvalidCoordinates):
		return "coordinates are points, 0 <= x < width and 0 <= y < height of WindowSize"
	case errors.Is(err, ErrBadAnswer):
		return "is the forwarded port WebDriverAgent's (8100 on the phone), and is WebDriverAgent healthy?"
	}
	return ""
}
