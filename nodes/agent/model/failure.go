package model

import "errors"

// callError is a failed call's error with what a log may say of it. Its text may quote the
// server's error body, and some servers echo the request there (the goal, text to type, a
// passcode): logs give the status, the outcome and the text's length, never the text.
type callError struct {
	status  int
	outcome string
	err     error
}

func (e *callError) Error() string { return e.err.Error() }
func (e *callError) Unwrap() error { return e.err }

// Failure is what a log may say of err, an error from Chat: the HTTP status the server
// answered (0: none came) and the call's outcome, as corral_model_requests_total counts it.
// An error from elsewhere is 0 and OutcomeOther.
func Failure(err error) (status int, outcome string) {
	if ce := (*callError)(nil); errors.As(err, &ce) {
		return ce.status, ce.outcome
	}
	return 0, OutcomeOther
}
