package main

import (
	"context"
	"errors"
	"flag"
	"strings"
)

// armCommand is one `corral arm NAME`: how it is called, what corral's usage says it does, what
// its -h says it does, and its command. The list is the one place a subcommand is added:
// corral's usage, corral arm's, its -h sentence, the flags-first refusal and the did-you-mean
// of a misspelt name all come from it.
type armCommand struct {
	name, synopsis string
	brief          string // after "corral arm NAME" in corral's usage
	what           string // the -h sentence
	run            func(ctx context.Context, args []string) error
}

func armCommands() []armCommand {
	return []armCommand{
		{"calibrate", "[flags] SERIAL", "SERIAL calibrates one again, step by step", "calibrate the arm rig SERIAL again, step by step", runArmCalibrate},
		{"recover", "[flags] SERIAL", "SERIAL unlocks one after an alarm", "unlock the arm rig SERIAL after an alarm", runArmRecover},
		{"page", "[--listen ADDR]", "serves the calibration page to phones without a cable", "serve the calibration page to the phones under the arms that have no cable", runArmPage},
	}
}

// line is the subcommand's command line, for the usages.
func (a armCommand) line() string { return "corral arm " + a.name + " " + a.synopsis }

// armBriefs are what corral's usage says of arm.
func armBriefs() string {
	var briefs []string
	for _, a := range armCommands() {
		briefs = append(briefs, "corral arm "+a.name+" "+a.brief)
	}
	return "arm rigs: " + strings.Join(briefs, "; ")
}

// armWhat is what `corral arm NAME` does ("" for no subcommand of that name).
func armWhat(name string) string {
	for _, a := range armCommands() {
		if a.name == name {
			return a.what
		}
	}
	return ""
}

// armUsage is corral arm's usage line.
func armUsage() string {
	var lines []string
	for _, a := range armCommands() {
		lines = append(lines, a.line())
	}
	return "usage: " + strings.Join(lines[:len(lines)-1], ", ") + ", or " + lines[len(lines)-1]
}

// runArm dispatches the arm rig commands.
func runArm(ctx context.Context, args []string) error {
	usage := armUsage()
	if subcommandHelp(args, usage+"\n('corral arm "+armCommands()[0].name+" -h' and the others list their flags)") {
		return flag.ErrHelp
	}
	if err := armFlagsFirst(args); err != nil {
		return err
	}
	if len(args) > 0 {
		var names []string
		for _, a := range armCommands() {
			if a.name == args[0] {
				return a.run(ctx, args[1:])
			}
			names = append(names, a.name)
		}
		if err := unknownSubcommand("arm", "subcommand", args[0], names); err != nil {
			return err
		}
	}
	return errors.New(usage)
}

// armFlagsFirst refuses flags given before arm's subcommand (corral arm --gateway URL
// calibrate SERIAL), naming where they go.
func armFlagsFirst(args []string) error {
	if len(args) == 0 || !strings.HasPrefix(args[0], "-") {
		return nil
	}
	for i, arg := range args {
		for _, a := range armCommands() {
			if a.name == arg {
				return flagsBeforeSubcommand("arm", arg, a.line(), flagNames(nil, args[:i]))
			}
		}
	}
	return nil
}
