package main

import (
	"context"
	"errors"
	"flag"
	"strings"
)

// simulator is one `corral sim NAME`: how it is called, what it does, and its command. The
// list is the one place a simulator is added: corral's usage, corral sim's, its -h sentence and
// the did-you-mean of a misspelt name all come from it.
type simulator struct {
	name, synopsis, what string
	run                  func(ctx context.Context, args []string) error
}

func simulators() []simulator {
	return []simulator{
		{"android", "--count N --listen 127.0.0.1:PORT", "run simulated Android devices that speak adb (the devices' own adbd protocol), from --listen's port on", runSimAndroid},
		{"ios", "--count N --listen 127.0.0.1:PORT", "run a simulated usbmuxd serving simulated iPhones on --listen", runSimIOS},
		{"arm", "--listen 127.0.0.1:PORT", "run a simulated arm rig: a GRBL controller on --listen, its camera and calibration readback on --http", runSimArm},
		{"model", "--listen 127.0.0.1:PORT --script FILE", "run a scripted model: the OpenAI-compatible chat API on --listen, answering with the turns of --script, one per request", runSimModel},
	}
}

// simCalls are the simulators' command lines, for the usages.
func simCalls() []string {
	var calls []string
	for _, s := range simulators() {
		calls = append(calls, "corral sim "+s.name+" "+s.synopsis)
	}
	return calls
}

// simWhat is what `corral sim NAME` does ("" for no simulator of that name).
func simWhat(name string) string {
	for _, s := range simulators() {
		if s.name == name {
			return s.what
		}
	}
	return ""
}

// runSim dispatches the simulators.
func runSim(ctx context.Context, args []string) error {
	calls := simCalls()
	simUsage := "usage: " + strings.Join(calls[:len(calls)-1], ", ") + ", or " + calls[len(calls)-1]
	if subcommandHelp(args, simUsage+"\n('corral sim android -h' and the others list their flags)") {
		return flag.ErrHelp
	}
	if len(args) > 0 {
		var names []string
		for _, s := range simulators() {
			if s.name == args[0] {
				return s.run(ctx, args[1:])
			}
			names = append(names, s.name)
		}
		if err := unknownSubcommand("sim", "simulator", args[0], names); err != nil {
			return err
		}
	}
	return errors.New(simUsage)
}
