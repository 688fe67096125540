package tools

import (
	"errors"
	"strconv"
	"strings"
)

// argAdvisor is an argument struct that knows what a caller giving it an argument it does not
// take likely meant: another tool's argument (long_press given tap_xy's duration).
type argAdvisor interface {
	// adviceOn says what to do instead of giving key, "" when it knows nothing of it.
	adviceOn(key string) string
}

// advisedArgError is encoding/json's refusal of an argument the tool does not take, with what
// to do instead; ArgProblem reads it.
type advisedArgError struct {
	err    error  // encoding/json's
	key    string // as encoding/json quotes it: "\"duration\""
	advice string
}

func (e *advisedArgError) Error() string { return e.err.Error() }
func (e *advisedArgError) Unwrap() error { return e.err }

// advised marks err, from decoding into v, as an advisedArgError when it refuses an argument
// of v's that v has advice on; any other error is returned as it is.
func advised(err error, v any) error {
	adv, ok := v.(argAdvisor)
	if !ok {
		return err
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		quoted, found := strings.CutPrefix(e.Error(), "json: unknown field ")
		if !found {
			continue
		}
		key, uerr := strconv.Unquote(quoted)
		if uerr != nil {
			return err
		}
		if advice := adv.adviceOn(key); advice != "" {
			return &advisedArgError{err: err, key: quoted, advice: advice}
		}
		return err
	}
	return err
}

// adviceOn sends a caller giving a bbox gesture a point or a hold (HttpRunner's x, y and
// duration, as its long press takes them) to tap_xy, which takes them.
func (*BBoxArgs) adviceOn(key string) string {
	switch key {
	case "x", "y":
		return "tap, double_tap and long_press act at the centre of bbox [left, top, right, bottom] (relative 0-1, as peek lists them); " +
			"to touch the point x, y, call tap_xy (with duration, in seconds, to hold it)"
	case "duration", "hold", "press_duration":
		return "tap, double_tap and long_press take no duration (long_press holds 1.2 s); " +
			"to press for as long as you choose, call tap_xy with x, y and duration (seconds)"
	}
	return ""
}
