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
		return f.nameSources(badValue(fmt.Errorf("--timeout %s: give a positive duration, e.g. 30s or 5m, or leave --timeout out for %s", d, without)))
	}
	return nil
}

// start is flags.start for an operator command: besides check (its arguments), it refuses a
// --timeout that is not positive (zero was taken as the default, which it does not say) and
// NATS settings a connection could not use. Every operator command starts here, so that
// --check-config stops each of them once checked, before it reaches the farm
// (TestEveryCommandStopsAtCheckConfig).
func (o *operatorFlags) start(args []string, check func() error) (stop bool, err error) {
	return o.startVia(args, check, func() bool { return *o.gateway == "" })
}

// startVia is start with viaNATS saying, once check passed, whether the command talks to
// NATS, whose settings are then checked: an operator action's (adminFlags.startArgs) may,
// with --gateway, refuse it in check, or take the holder's path through the gateway.
func (o *operatorFlags) startVia(args []string, check func() error, viaNATS func() bool) (stop bool, err error) {
	_, stop, err = o.flags.start(args, func() error {
		if err := o.checkTimeout(*o.timeout, o.timeoutDefault); err != nil {
			return err
		}
		if check != nil {
			if err := check(); err != nil {
				return err
			}
		}
		if *o.gateway != "" {
			if err := o.tokens.checkGateway(*o.gateway); err != nil {
				return err
			}
		}
		if !viaNATS() {
			return nil
		}
		return checkNATS(o.nats, cliOptions(o.nats))
	})
	return stop, err
}
