package tools

import "strings"

// shownError is err with every copy of a secret part of an argument replaced by how it may be
// shown (a URL's password as REDACTED), keeping err's code: a driver's error may quote the
// argument whole, and an error goes to the task record, which others read.
type shownError struct {
	msg string
	err error
}

func (e *shownError) Error() string { return e.msg }
func (e *shownError) Unwrap() error { return e.err }

// withShown returns err with raw replaced by shown in its text, or err itself when they are alike.
func withShown(err error, raw, shown string) error {
	if err == nil || raw == shown || !strings.Contains(err.Error(), raw) {
		return err
	}
	return &shownError{msg: strings.ReplaceAll(err.Error(), raw, shown), err: err}
}
