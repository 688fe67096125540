package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/corral-farm/corral/mcp/steps"
)

// runRun runs a steps file (HttpRunner-style actions or tool calls) through a gateway's tools,
// printing each step as it ends, and writes the report as JSON and JUnit XML.
func runRun(ctx context.Context, args []string) error {
	f := newFlags("run")
	gateway := f.String("gateway", "http://127.0.0.1:8420/mcp", "the gateway's MCP endpoint")
	serial := f.String("serial", "", "device of every step that names none (overrides the file's serial)")
	platform := f.String("platform", "", "platform of every step that names none: android, ios, web, ...")
	jsonOut := f.String("json", "", "write the report as JSON to this file (- for stdout; the table then goes to stderr)")
	junitOut := f.String("junit", "", "write the report as JUnit XML to this file, for CI")
	tokens := f.tokenFlag()
	keepGoing := f.Bool("keep-going", false, "run every step even after one failed (by default the rest are skipped)")
	f.Usage = func() {
		fmt.Fprintf(f.Output(), "usage: corral run FILE [flags]\n\nRuns the steps of FILE (YAML or JSON; docs/scripted-runs.md) through a gateway's tools.\n\n")
		f.PrintDefaults()
	}
	f.positional = true // FILE
	var doc *steps.Document
	var red *redactor // the steps' secrets, kept out of what the run shows
	// The report files must be writable before a step runs: a run whose report cannot be
	// written has used the devices for nothing. --check-config, without a gateway, checks every
	// step against this corral's own tools, a device for each included (steps.NewPlan, as the run
	// does against the gateway's tools).
	check := func() error {
		if err := runFileArg(f.Args()); err != nil {
			return err
		}
		if err := knownPlatform(*platform); err != nil {
			return err
		}
		var err error
		if doc, err = steps.Load(f.Arg(0)); err != nil {
			return err
		}
		red = newRedactor(doc, *serial)
		if *f.checkConfig {
			if err := checkSteps(doc, steps.Options{Serial: *serial, Platform: *platform}); err != nil {
				return fmt.Errorf("%s:\n%w", f.Arg(0), red.err(err))
			}
		}
		return errors.Join(checkReportFiles(*jsonOut, *junitOut), tokens.checkGateway(*gateway))
	}
	log, stop, err := f.start(flagsFirst(f.FlagSet, args), check)
	if err != nil || stop {
		return err
	}
	log = redactedLog(log, red)
	out := io.Writer(os.Stdout)
	if *jsonOut == "-" {
		out = os.Stderr
	}

	c, err := tokens.dialGateway(ctx, *gateway, "corral-run")
	if err != nil {
		return err
	}
	defer c.Close()
	cat, err := steps.FetchCatalog(ctx, c)
	if err != nil {
		return err
	}
	if local, err := localCatalog(); err == nil {
		cat.Known(local.Names()) // a tool the token's policy does not list is not one the gateway lacks
	}
	if tok, err := tokens.token(); err == nil && tok != "" {
		cat.TokenSent() // its policy may list a profile's tools alone: not proof of --tools
	}
	tw := steps.NewTextWriter(out)
	plan, err := steps.NewPlan(doc, cat, steps.Options{Serial: *serial, Platform: *platform, KeepGoing: *keepGoing,
		Progress: func(r steps.Result) { tw.Step(red.result(r)) }, Hide: red.text, Log: log})
	if err != nil {
		return fmt.Errorf("%s: nothing ran; fix these steps:\n%w", f.Arg(0), red.err(err))
	}
	var reported atomic.Bool
	defer onForcedExit(ctx, func() string { return runLeftBehind(plan.Holding(), !reported.Load(), *jsonOut, *junitOut) })()
	tw.Begin(plan.Name, plan.Len(), plan.Serial)
	rep := plan.Run(ctx, c)
	red.report(rep) // the steps' secrets and lease handles are their holders' (redact.go)
	tw.End(rep)
	err = writeReports(rep, *jsonOut, *junitOut)
	reported.Store(true)
	if err != nil {
		return err
	}
	if first := rep.FirstFailure(); first != nil {
		return fmt.Errorf("%d of %d steps failed; the first, step %d (%s): %s", rep.Failed, rep.Tests, first.Index, first.Tool,
			firstLine(first.Error))
	}
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: %d of %d steps skipped", rep.Skipped, rep.Tests)
	}
	return nil
}

// checkSteps checks doc's steps as the run will, without a gateway: against the tools of a
// gateway of this corral (one of another version may serve others).
func checkSteps(doc *steps.Document, opts steps.Options) error {
	cat, err := localCatalog()
	if err != nil {
		return err
	}
	_, err = steps.NewPlan(doc, cat, opts)
	return err
}

// writeReports writes the JSON (- is stdout) and JUnit files that were asked for.
func writeReports(rep *steps.Report, jsonOut, junitOut string) error {
	write := func(path string, fn func(io.Writer) error) error {
		if path == "-" {
			return fn(os.Stdout)
		}
		fh, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("report file: %w", err)
		}
		if err := fn(fh); err != nil {
			_ = fh.Close()
			return err
		}
		return fh.Close()
	}
	if jsonOut != "" {
		if err := write(jsonOut, rep.WriteJSON); err != nil {
			return err
		}
	}
	if junitOut != "" {
		if err := write(junitOut, rep.WriteJUnit); err != nil {
			return err
		}
	}
	return nil
}

// checkReportFiles says whether the reports asked for can be written: each file on its own, and
// not both to one place (stdout, or the same file), where one would spoil or replace the other.
func checkReportFiles(jsonOut, junitOut string) error {
	switch { // flags that conflict: a command line the command does not take (badValue, exit 2)
	case jsonOut == "-" && junitOut == "-":
		return badValue(errors.New("--json - and --junit - both write to stdout, where neither could be read: give one of them a file " +
			"(e.g. --junit report.xml); nothing ran"))
	case jsonOut != "" && jsonOut != "-" && sameFile(jsonOut, junitOut):
		return badValue(fmt.Errorf("--json %s and --junit %s are the same file: the JUnit XML would replace the JSON; give each its own "+
			"(e.g. report.json and report.xml); nothing ran", jsonOut, junitOut))
	}
	return errors.Join(checkReportFile("--json", jsonOut, ".json"), checkReportFile("--junit", junitOut, ".xml"))
}

// sameFile says whether paths a and b name one file: the same path, or links to one file.
func sameFile(a, b string) bool {
	if b == "" || b == "-" {
		return false
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	if errA == nil && errB == nil && absA == absB {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// runLeftBehind is what a run ended by a second signal leaves: the devices it holds leases of
// (until the leases expire), and the reports not written.
func runLeftBehind(holding []string, unreported bool, jsonOut, junitOut string) string {
	var lines []string
	for _, serial := range slices.Compact(slices.Sorted(slices.Values(holding))) {
		lines = append(lines, fmt.Sprintf("corral run: %s stays leased until its lease expires: `corral leases` shows it; "+
			"`corral release %s --force` (an operator) frees it now", serial, serial))
	}
	var files []string
	if jsonOut != "" {
		files = append(files, "--json "+jsonOut)
	}
	if junitOut != "" {
		files = append(files, "--junit "+junitOut)
	}
	if unreported && len(files) > 0 {
		lines = append(lines, "corral run: no report was written ("+strings.Join(files, ", ")+")")
	}
	return strings.Join(lines, "\n")
}

// checkReportFile says whether a report can be written to path ("" and - need no file): its
// directory takes a new file, and path is not a directory (ext: a report file's extension).
func checkReportFile(name, path, ext string) error {
	if path == "" || path == "-" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s %s is a directory: give the report's file in it, e.g. %s", name, path, filepath.Join(path, "report"+ext))
	}
	probe, err := os.CreateTemp(filepath.Dir(path), ".corral-run-*")
	if err == nil {
		_ = probe.Close()
		_ = os.Remove(probe.Name())
		var fh *os.File // a file already there must take the report too
		if fh, err = os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			_ = fh.Close()
		} else if errors.Is(err, os.ErrNotExist) {
			err = nil
		}
	}
	if err != nil {
		return fmt.Errorf("%s %s: the report could not be written there (%w); nothing ran: give a file in a directory that exists and that you may write", name, path, err)
	}
	return nil
}

// firstLine is an error's first line, cut to what a last line of a CI log should carry.
func firstLine(s string) string {
	const most = 300
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > most {
		s = strings.ToValidUTF8(s[:most], "") + "… (the table above has all of it)"
	}
	return s
}

// flagsFirst moves the flags before the positional arguments, so that `corral run steps.yaml
// --serial S` reads --serial and `corral drain n1 --undo` reads --undo (the flag package stops
// at the first positional argument).
func flagsFirst(fs *flag.FlagSet, args []string) []string {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			rest = append(rest, a)
			continue
		}
		flags = append(flags, a)
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		fl := fs.Lookup(name)
		if hasValue || fl == nil || isBoolFlag(fl) {
			continue
		}
		if i+1 >= len(args) {
			// A flag given last without its value stays last, with no "--" after it to take
			// as its value: Parse then says "flag needs an argument" and nothing runs.
			return flags
		}
		i++
		flags = append(flags, args[i]) // the flag's value, which may look like a positional argument
	}
	return append(append(flags, "--"), rest...)
}

func isBoolFlag(fl *flag.Flag) bool {
	b, ok := fl.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
