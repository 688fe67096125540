package main

import "strings"

// withHint adds what to do to err's message after a semicolon, the full stop that ends err's
// own sentence dropped: "… get_latest_task; `corral tasks` …", not "get_latest_task.; …".
func withHint(err error, hint string) error {
	return &hintedError{msg: strings.TrimRight(err.Error(), ". ") + "; " + hint, err: err}
}

// hintedError is an error with what to do added to its message.
type hintedError struct {
	msg string
	err error
}

func (e *hintedError) Error() string { return e.msg }
func (e *hintedError) Unwrap() error { return e.err }
