package main

import "errors"

// A call that ends (Ctrl-C, or its --timeout) before it is sent, while its command connects to
// NATS or to the gateway or reads the tool catalogue, ran nothing: interrupted and gaveUpOn say
// so, not that its task was withdrawn, aborted or stopped, nor where its record is (it has none).

// notSent is the error of a call that ended before it was sent.
type notSent struct{ err error }

func (e *notSent) Error() string { return e.err.Error() }
func (e *notSent) Unwrap() error { return e.err }

// beforeSending marks err (nil stays nil) as that of a call not sent.
func beforeSending(err error) error {
	if err == nil {
		return nil
	}
	return &notSent{err}
}

// wasNotSent says whether err is that of a call not sent.
func wasNotSent(err error) bool {
	var ns *notSent
	return errors.As(err, &ns)
}
