package ios

import "errors"

// A call whose own deadline (its timeout_ms) ends while WebDriverAgent works said "wda
// http://…: POST /session/:sid/actions: context deadline exceeded": WDA's address and route,
// and no word of what ended. It says that the call's time ran out first.

// ErrCallEnded says the call's deadline ended, or the call was ended, before WebDriverAgent
// was done.
var ErrCallEnded = errors.New("the call's deadline (timeout_ms) passed before WebDriverAgent was done")

// callEndedHint says what to do about a call whose time ran out.
const callEndedHint = "give the call a longer timeout_ms (a gesture's duration and a few seconds); an input sent may have acted: peek before you repeat it"

// endedError is ErrCallEnded, and err (the context's error, errors.Is) without its words.
type endedError struct{ err error }

func (e *endedError) Error() string { return ErrCallEnded.Error() }

func (e *endedError) Unwrap() []error { return []error{ErrCallEnded, e.err} }
