package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/corral-farm/corral/mcp/steps"
)

// runTasksCommand is `corral tasks`: the task history, or `corral tasks export TASK_ID`.
func runTasksCommand(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "export" {
		return runTasksExport(ctx, args[1:])
	}
	return runTasks(ctx, args)
}

// tasksExportLine is the usage line of corral tasks export.
const tasksExportLine = "corral tasks export TASK_ID [--gateway URL | --nats-url URL] [--out FILE]"

// newTasksExportFlags are the flags of corral tasks export, and its --out.
func newTasksExportFlags() (*operatorFlags, *string) {
	o := newOperatorFlags("tasks export")
	return o, o.String("out", "", "write the steps file to this file (default: stdout)")
}

// runTasksExport writes an agent task's device actions as a steps file that `corral run`
// replays without a model. It reads the task's record with get_task_result, through a gateway
// (--gateway) or through NATS (--nats-url), as `corral call` does.
func runTasksExport(ctx context.Context, args []string) error {
	o, out := newTasksExportFlags()
	o.Usage = func() {
		fmt.Fprintf(o.Output(), "usage: "+tasksExportLine+"\n\n"+
			"Writes the device actions of an agent task (run_agent_task) as a steps file for `corral run` (docs/agent.md).\n\n")
		o.PrintDefaults()
	}
	o.positional = true // TASK_ID
	one := o.oneArg(tasksExportLine)
	check := func() error { return errors.Join(one(), checkOutFile("--out", *out, "the steps file", "steps.yaml")) }
	if stop, err := o.start(flagsFirst(o.FlagSet, args), check); err != nil || stop {
		return err
	}
	id := o.Arg(0)
	res, err := o.callTool(ctx, "get_task_result", map[string]any{"taskId": id})
	if err != nil {
		return withHint(fmt.Errorf("read task %s: %w", id, err), "`corral tasks --tool run_agent_task` lists the agent tasks the event stream keeps")
	}
	var rec steps.TaskRecord
	if err := structured(res, &rec); err != nil {
		return fmt.Errorf("read task %s: get_task_result's answer: %w", id, err)
	}
	ex, err := steps.ExportAgentTask(rec)
	if err != nil {
		return err
	}
	for _, n := range ex.Notes {
		fmt.Fprintln(os.Stderr, "note:", n)
	}
	if *out == "" {
		_, err := os.Stdout.Write(ex.YAML)
		return err
	}
	if err := os.WriteFile(*out, ex.YAML, 0o644); err != nil {
		return fmt.Errorf("write the steps file: %w", err)
	}
	fmt.Fprintf(os.Stderr, "wrote %s: %s replaying the %s of task %s on %s; run it: corral run %s --gateway URL\n",
		*out, counted(ex.Steps, "step", "steps"), counted(ex.Actions, "action", "actions"), id, rec.Serial, *out)
	return nil
}
