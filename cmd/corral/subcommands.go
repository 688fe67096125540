package main

import (
	"context"
	"errors"
	"flag"
	"strings"
)

// subcommand is one `corral GROUP NAME` of a group (corral sim's simulators, corral arm's rig
// commands): how it is called, what its -h says it does, what corral's usage says of it, and
// its command.
type subcommand struct {
	name, synopsis string
	brief          string // after "corral GROUP NAME" in corral's usage ("" when that lists calls)
	what           string // the -h sentence
	run            func(ctx context.Context, args []string) error
}

// group is a command of subcommands: the one place a subcommand is added. corral's usage, the
// group's usage, each -h sentence, the flags-first refusal and the did-you-mean of a misspelt
// name all come from it.
type group struct {
	name string // "sim"
	kind string // what a subcommand is called in refusals: "simulator"
	subs []subcommand
}

// call is sub's command line, for the usages.
func (g group) call(sub subcommand) string {
	return "corral " + g.name + " " + sub.name + " " + sub.synopsis
}

// calls are the subcommands' command lines.
func (g group) calls() []string {
	var calls []string
	for _, s := range g.subs {
		calls = append(calls, g.call(s))
	}
	return calls
}

// usage is the group's usage line.
func (g group) usage() string {
	calls := g.calls()
	return "usage: " + strings.Join(calls[:len(calls)-1], ", ") + ", or " + calls[len(calls)-1]
}

// what is what `corral GROUP NAME` does ("" for no subcommand of that name).
func (g group) what(name string) string {
	for _, s := range g.subs {
		if s.name == name {
			return s.what
		}
	}
	return ""
}

// run runs the subcommand args name: after -h, a flag before the name (refused, naming where it
// goes), or a misspelt name (refused with the nearest), it says so; with none, its usage.
func (g group) run(ctx context.Context, args []string) error {
	usage := g.usage()
	if subcommandHelp(args, usage+"\n('corral "+g.name+" "+g.subs[0].name+" -h' and the others list their flags)") {
		return flag.ErrHelp
	}
	if err := g.flagsFirst(args); err != nil {
		return err
	}
	if len(args) > 0 {
		var names []string
		for _, s := range g.subs {
			if s.name == args[0] {
				return s.run(ctx, args[1:])
			}
			names = append(names, s.name)
		}
		if err := unknownSubcommand(g.name, g.kind, args[0], names); err != nil {
			return err
		}
	}
	return errors.New(usage)
}

// flagsFirst refuses flags given before the subcommand (corral arm --gateway URL calibrate
// SERIAL), naming where they go.
func (g group) flagsFirst(args []string) error {
	if len(args) == 0 || !strings.HasPrefix(args[0], "-") {
		return nil
	}
	for i, arg := range args {
		for _, s := range g.subs {
			if s.name == arg {
				return flagsBeforeSubcommand(g.name, arg, g.call(s), flagNames(nil, args[:i]))
			}
		}
	}
	return nil
}
