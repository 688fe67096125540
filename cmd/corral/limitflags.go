package main

import (
	"fmt"
	"time"
)

// A duration flag given a negative value (or zero, where zero means nothing) is refused with
// what to give instead: the flag package takes -1s as readily as 30s, and a command that then
// treated it as its default, or gave up at once, hid the mistake.

// given reports whether flag name was given: on the command line, in CORRAL_<FLAG> or in the
// --config file (parse).
func (f *flags) given(name string) bool {
	_, fromElsewhere := f.sources[name]
	return f.onCommandLine[name] || fromElsewhere
}

// checkTimeout refuses a negative --timeout, and a --timeout 0 given; without says what leaving
// --timeout out gives.
func (f *flags) checkTimeout(d time.Duration, without string) error {
	if d < 0 || d == 0 && f.given("timeout") {
		return f.nameSources(fmt.Errorf("--timeout %s: give a positive duration, e.g. 30s or 5m, or leave --timeout out for %s", d, without))
	}
	return nil
}

// parse is flags.parse, then refuses a --timeout that is not positive (zero was taken as the
// default, which it does not say).
func (o *operatorFlags) parse(args []string) error {
	if err := o.flags.parse(args); err != nil {
		return err
	}
	return o.checkTimeout(*o.timeout, o.timeoutDefault)
}

// parse is flags.parse, then refuses a --timeout that is not positive (zero gave up at once).
func (a *adminFlags) parse(args []string) error {
	if err := a.flags.parse(args); err != nil {
		return err
	}
	return a.checkTimeout(*a.timeout, a.Lookup("timeout").DefValue)
}
