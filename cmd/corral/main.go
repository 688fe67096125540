// Command corral runs and operates a Corral device farm: `corral up` runs everything in one
// process; `gateway`, `node`, `vision` (built with the vision tag: make build-vision) and
// `mcp-stdio` are the parts; `devices`, `leases`, `call`,
// `abort`, `release`, `drain` and `tasks` operate a running farm (docs/operations.md).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/buildinfo"
)

type command struct {
	name  string
	usage string
	run   func(ctx context.Context, args []string) error
}

func commands() []command {
	return []command{
		{"up", "run everything in one process: embedded NATS, a node with devices, the MCP gateway", runUp},
		{"gateway", "run an MCP gateway (stateless; run several) against a NATS", runGateway},
		{"node", "run an edge node with its devices against a NATS", runNode},
		{"vision", "run a vision worker (OCR, template matching, element listing) against a NATS; needs a corral built with make build-vision", runVision},
		{"nats-auth", "make a farm's NATS users, server config and contexts: corral nats-auth --node ID [--node ID ...]", runNATSAuth},
		{"sim", "run simulators that speak real protocols: " + strings.Join(simulators().calls(), "; "), runSim},
		{"arm", armBriefs(), runArm},
		{"mcp-stdio", "bridge a stdio MCP client (Claude Desktop, Cursor, …) to a gateway", runMCPStdio},
		{"devices", "list the farm's devices; corral devices forget --node ID removes a node stopped for good's from the registry", runDevices},
		{"leases", "list the leases held", runLeases},
		{"call", "call a tool: corral call TOOL '{json arguments}'", runCall},
		{"run", "run a steps file (HttpRunner actions) through the tools: corral run FILE --serial S", runRun},
		{"abort", "abort the running task of a device: corral abort SERIAL [--all]", runAbort},
		{"release", "end a lease: corral release SERIAL --force (an operator revokes it) or --lease-file FILE (the holder; or $CORRAL_LEASE)", runRelease},
		{"drain", "stop new work on a node, let what runs finish: corral drain NODE [--wait] [--undo]", runDrain},
		{"tasks", "task history from the event stream: corral tasks [--serial S] [--outcome O] [--limit N]; corral tasks export TASK_ID writes an agent task's actions as a steps file", runTasksCommand},
		{"version", "print the version (also: corral --version)", runVersion},
	}
}

func main() {
	os.Exit(realMain(os.Args[1:]))
}

func realMain(args []string) int {
	if len(args) == 0 {
		usage(os.Stderr)
		return 2
	}
	if isHelp(args[0]) || args[0] == "help" && (len(args) == 1 || args[1] == "help") {
		usage(os.Stdout) // asked for (corral help help too): not an error
		return 0
	}
	if args[0] == "help" { // corral help CMD [SUB] is corral CMD [SUB] -h
		args = append(args[1:], "-h")
	}
	if args[0] == "--version" || args[0] == "-version" {
		args = append([]string{"version"}, args[1:]...)
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		ctx, stop := signalContext(interruptNotice(c.name))
		defer stop()
		refusals := broker.NewRefusals()
		ctx, stopWatch := withRefusals(ctx, refusals)
		defer stopWatch()
		err := c.run(ctx, args[1:])
		if errors.Is(err, flag.ErrHelp) {
			return 0 // the help that was asked for is printed
		}
		if r := refusals.Refused(); r != nil && err != nil {
			err = r // what the command saw of it is a cancelled context
		}
		err = withCLIRole(err, cliCommand(c.name, args[1:]))
		return exitCode(c.name, err)
	}
	if hint := commandHint(args[0]); hint != "" { // a typo: one line, not the whole list
		fmt.Fprintf(os.Stderr, "corral: unknown command %q%s\nrun 'corral help' for the commands\n", args[0], hint)
		return 2
	}
	fmt.Fprintf(os.Stderr, "corral: unknown command %q\n\n", args[0])
	usage(os.Stderr)
	return 2
}

// exitCode prints err of command name, unless it is printed already, and returns the exit
// code: 0 for none, 2 for a usage error (a flag or argument the command does not take), 1
// for any other.
func exitCode(name string, err error) int {
	if err == nil {
		return 0
	}
	var ue *usageError
	printed := errors.As(err, &ue) && ue.printed
	if !printed {
		fmt.Fprintf(os.Stderr, "corral %s: %v\n", name, err)
	}
	if ue != nil || strings.HasPrefix(err.Error(), "usage: ") { // a command's own usage line
		return 2
	}
	return 1
}

// usageError is a command line the command does not take; printed: the flag package has
// printed it, and the flags.
type usageError struct {
	err     error
	printed bool
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// isHelp says whether arg asks for help, as the flag package takes it.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "-help" || arg == "--h"
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: corral COMMAND [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.usage)
	}
	fmt.Fprintln(w, "\nRun 'corral help COMMAND' (or 'corral COMMAND -h') for its flags. Flags may also come from\n"+
		"CORRAL_<FLAG> environment variables and from a YAML file given with --config.")
}

// subcommands says what the subcommands do, for their -h; the commands' own are commands()'
// usage, the simulators' and arm's their what (simulators.go, armcommands.go).
var subcommands = map[string]string{
	"tasks export":   "write an agent task's device actions as a steps file for corral run",
	"devices forget": "remove the devices of a node stopped for good from the registry",
}

// summary is what command name does, one sentence for the top of its -h.
func summary(name string) string {
	what := subcommands[name]
	if sim, ok := strings.CutPrefix(name, "sim "); ok {
		what = simulators().what(sim)
	}
	if sub, ok := strings.CutPrefix(name, "arm "); ok {
		what = armCommands().what(sub)
	}
	for _, c := range commands() {
		if c.name == name {
			what = c.usage
		}
	}
	if what == "" {
		return ""
	}
	return strings.ToUpper(what[:1]) + what[1:] + "."
}

// subcommandHelp prints usage for a command of subcommands asked for help (corral sim -h),
// and says so; the caller then returns flag.ErrHelp.
func subcommandHelp(args []string, usage string) bool {
	if len(args) == 0 || !isHelp(args[0]) && args[0] != "help" {
		return false
	}
	fmt.Println(usage)
	return true
}

// signalContext is cancelled by the first SIGINT/SIGTERM, which prints notice (graceful
// drain); a second one exits at once, after saying what the command leaves behind
// (onForcedExit).
func signalContext(notice string) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	ctx, left := withLeftBehind(ctx)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-ch
		fmt.Fprintln(os.Stderr, notice)
		cancel()
		<-ch
		left.say(os.Stderr)
		os.Exit(130)
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}

// interruptNotice is what the first signal prints for command name: a service shuts down; a
// one-off command (call, run, drain --wait, …) is interrupted and says what became of its work.
func interruptNotice(name string) string {
	switch name {
	case "up", "gateway", "node", "vision", "sim", "arm", "mcp-stdio":
		return "corral: shutting down (signal again to force)"
	}
	return "corral: interrupted, stopping (signal again to force)"
}

// runVersion prints the version.
func runVersion(_ context.Context, args []string) error {
	f := newFlags("version")
	f.Usage = commandUsage(f, "corral version   (or corral --version)", "Prints the version of this corral.")
	if _, stop, err := f.start(args, nil); err != nil || stop {
		return err
	}
	fmt.Println(buildinfo.Version())
	return nil
}
