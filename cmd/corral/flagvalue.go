package main

import (
	"errors"
	"flag"
	"fmt"
	"regexp"
)

// badFlagValue is the flag package's refusal of a value on the command line; its own kinds of
// values say only "parse error" there.
var badFlagValue = regexp.MustCompile(`^invalid value ("(?:[^"\\]|\\.)*") for flag -([^:]+): (.*)$`)

// valueHint says what a flag takes when the flag package refused its value on the command line
// (--since bogus: a duration, e.g. 30s, 5m or 1h30m), as explainSet does for CORRAL_<FLAG> and
// the --config file.
func valueHint(fs *flag.FlagSet, err error) error {
	m := badFlagValue.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	fl := fs.Lookup(m[2])
	if fl == nil {
		return err
	}
	why := explainSet(fl, errors.New(m[3]))
	if why.Error() == m[3] {
		return err // a value of its own kind, which says what it wants itself
	}
	return fmt.Errorf("invalid value %s for flag --%s: %w", m[1], m[2], why)
}
