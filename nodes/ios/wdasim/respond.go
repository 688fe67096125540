package wdasim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/corral-farm/corral/nodes/sim"
)

// wdaError is a failure as WebDriverAgent reports it: an HTTP status and a W3C error code.
type wdaError struct {
	status  int
	code    string
	message string
}

func (e *wdaError) Error() string { return e.code + ": " + e.message }

// The errors of WebDriverAgent's FBCommandStatus that the routes here can answer.
func errUnknownCommand(method, path string) *wdaError {
	return &wdaError{http.StatusNotFound, "unknown command", fmt.Sprintf("Unhandled endpoint: %s %s", method, clipText(path))}
}

func errInvalidSession(sid string) *wdaError {
	return &wdaError{http.StatusNotFound, "invalid session id", fmt.Sprintf("Session does not exist: %q; create one with POST /session", clipText(sid))}
}

func errInvalidArgument(msg string) *wdaError {
	return &wdaError{http.StatusBadRequest, "invalid argument", msg}
}

func errInvalidCoordinates(msg string) *wdaError {
	return &wdaError{http.StatusBadRequest, "invalid coordinates", msg}
}

func errInvalidElementState(msg string) *wdaError {
	return &wdaError{http.StatusBadRequest, "invalid element state", msg}
}

func errSessionNotCreated(msg string) *wdaError {
	return &wdaError{http.StatusInternalServerError, "session not created", msg}
}

func errUnknown(msg string) *wdaError {
	return &wdaError{http.StatusInternalServerError, "unknown error", msg}
}

// phoneError turns an error of the simulated phone into WebDriverAgent's.
func phoneError(err error) *wdaError {
	var we *wdaError
	switch {
	case errors.As(err, &we):
		return we
	case errors.Is(err, sim.ErrOutOfScreen):
		return errInvalidCoordinates(err.Error())
	case errors.Is(err, sim.ErrNoFocus):
		return errInvalidElementState("no keyboard is shown: " + err.Error())
	case errors.Is(err, sim.ErrBadInput), errors.Is(err, sim.ErrUnknownKey):
		return errInvalidArgument(err.Error())
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return &wdaError{http.StatusRequestTimeout, "timeout", err.Error()}
	}
	return errUnknown(err.Error())
}

// reply writes v as the value of WebDriverAgent's envelope, or an error as its error value.
func (s *Server) reply(w http.ResponseWriter, v any) {
	status := http.StatusOK
	if err, ok := v.(error); ok {
		we := phoneError(err)
		status = we.status
		v = map[string]string{"error": we.code, "message": we.message, "traceback": ""}
	}
	s.mu.Lock()
	var sid any
	if s.sid != "" {
		sid = s.sid
	}
	s.mu.Unlock()
	body, err := json.Marshal(map[string]any{"value": v, "sessionId": sid})
	if err != nil {
		status = http.StatusInternalServerError
		body = []byte(`{"value":{"error":"unknown error","message":"the answer could not be encoded","traceback":""},"sessionId":null}`)
	}
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// clipText shortens what a client sent for an error message.
func clipText(s string) string {
	const most = 200
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= most {
		return s
	}
	n := most
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
