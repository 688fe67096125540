package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/corral-farm/corral/nodes/tools"
)

// corral call waits, unless told otherwise (--timeout), as long as the call may take on its
// device: what it may wait in the device's queue, then the task's own deadline, then a margin
// for the answer to come back. Giving up sooner would stop a task the device was still
// running within its deadline (a long sleep, an app install, an agent task).

// callMargin is how long corral call waits past a call's own deadline: for the node's answer
// to come back, or the gateway to tell of a node it lost (heartbeats miss in 2.5 s).
const callMargin = 30 * time.Second

// defaultCallTimeout bounds the calls of the gateway's own tools (lists, leases, task
// records), which have no deadline of their own, and the other operator commands.
const defaultCallTimeout = 2 * time.Minute

// callBudget is how long a call of tool with args may take when --timeout does not say: its
// wait_seconds, then its deadline (timeout_ms within the tool's cap, else the tool's default;
// an agent task's timeoutMs or a sleep's seconds when longer), plus callMargin.
func callBudget(tool string, args map[string]any) time.Duration {
	wait := duration(args["wait_seconds"], time.Second)
	t, ok := tools.Lookup(tool)
	if !ok {
		return wait + defaultCallTimeout
	}
	run := t.Timeout
	if asked := duration(args["timeout_ms"], time.Millisecond); asked > 0 {
		run = min(asked, max(t.MaxTimeout, t.Timeout))
	}
	run = max(run, duration(args["timeoutMs"], time.Millisecond), duration(args["seconds"], time.Second))
	return wait + run + callMargin
}

// duration reads a JSON number as that many units (0 for anything else, or beyond any
// deadline); the gateway checks the value itself.
func duration(v any, unit time.Duration) time.Duration {
	f, ok := v.(float64)
	if !ok || !(f > 0) || f > float64(maxBudget/unit) {
		return 0
	}
	return time.Duration(f * float64(unit))
}

// maxBudget is beyond any deadline a tool takes (timeout_ms is capped at a day).
const maxBudget = 48 * time.Hour

// callTimeout is how long corral call gives tool: --timeout when given (on the command line,
// in CORRAL_TIMEOUT or the --config file), else callBudget.
func (o *operatorFlags) callTimeout(tool string, args map[string]any) (d time.Duration, given bool) {
	if *o.timeout > 0 {
		return *o.timeout, true
	}
	return callBudget(tool, args), false
}

// gaveUp tells a call that ended because the command's own deadline passed as that, not as
// what the call saw of it (a node that did not answer, a transport error): the command gave
// up, which stopped the task, and waiting longer is the remedy.
func (o *operatorFlags) gaveUp(ctx context.Context, tool string, d time.Duration, given bool, err error) error {
	return o.gaveUpOn(ctx, tool, nil, d, given, err)
}

// gaveUpOn is gaveUp of a call of tool with args, saying for a device tool where its task's
// record is (whereTheRecordIs): its id, when err carries it.
func (o *operatorFlags) gaveUpOn(ctx context.Context, tool string, args map[string]any, d time.Duration, given bool, err error) error {
	if err == nil || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return err
	}
	what := "the call was abandoned"
	if t, ok := tools.Lookup(tool); wasNotSent(err) {
		what = "the call was not sent, reaching the farm took all of it: nothing ran"
	} else if ok && t.Background {
		what = "the task goes on running on its device, to its end or abort_task; " + o.whereTheRecordIs(args, err)
	} else if ok {
		what = "the task was stopped; " + o.whereTheRecordIs(args, err)
	}
	if given {
		return fmt.Errorf("gave up after --timeout %s: %s; raise --timeout to wait longer", d, what)
	}
	return fmt.Errorf("gave up after %s (what %s may take: its wait and its deadline, plus %s): %s; pass a larger --timeout to wait longer",
		d, tool, callMargin, what)
}

// interrupted tells a call whose command was interrupted (Ctrl-C, SIGTERM) as that, and how to
// read its task's record (whereTheRecordIs). Through --gateway the request is cancelled, which
// mcp-go reports as a transport error, and the task's id is known only if the session told it
// after (withTaskID). The in-process gateway says so itself, but to an agent ("get_task_result
// has its record. [task …]"): its words stay only when the command does not know the id either.
func (o *operatorFlags) interrupted(ctx context.Context, tool string, args map[string]any, err error) error {
	if err == nil || !errors.Is(ctx.Err(), context.Canceled) {
		return err
	}
	if it := (*interruptedTask)(nil); !errors.As(err, &it) && strings.Contains(err.Error(), "interrupted by its caller") {
		return err
	}
	t, isDeviceTool := tools.Lookup(tool)
	switch {
	case wasNotSent(err):
		return fmt.Errorf("%s: the call was interrupted (%w) before it was sent: nothing ran", tool, context.Canceled)
	case !isDeviceTool:
		return fmt.Errorf("%s: the call was interrupted (%v)", tool, context.Canceled)
	case t.Background:
		return fmt.Errorf("%s: the call was interrupted (%v): the task goes on running on its device, to its end or abort_task; %s",
			tool, context.Canceled, o.whereTheRecordIs(args, err))
	}
	return fmt.Errorf("%s: the call was interrupted (%v): the gateway withdrew the task from the device's queue, or aborted it if it had started; %s",
		tool, context.Canceled, o.whereTheRecordIs(args, err))
}

// whereTheRecordIs says how to find the record of an interrupted call's task: get_task_result
// the way this command reached the farm (sameFarm), when err carries the task's id; else
// corral tasks, with NATS access. Not get_latest_task: the next corral call is a new session,
// whose latest is its holder's, which any other call as that holder moves.
func (o *operatorFlags) whereTheRecordIs(args map[string]any, err error) string {
	if it := (*interruptedTask)(nil); errors.As(err, &it) {
		return fmt.Sprintf("its record: corral call %sget_task_result '{\"taskId\":\"%s\"}'", o.sameFarm(), it.id)
	}
	serial, _ := args["serial"].(string)
	if serial == "" {
		serial = "SERIAL"
	}
	return fmt.Sprintf("its record, with NATS access: corral tasks --serial %s --limit 1", serial)
}

// sameFarm is the flags, each followed by a space, with which another corral call reaches the
// farm as this one did: through --gateway, as the same holder (its --token-file); else over
// NATS, with the --config and --nats-… flags this command line gave (a URL's password hidden;
// those from the environment or the --config file come again by themselves).
func (o *operatorFlags) sameFarm() string {
	var via []string
	if *o.gateway != "" {
		via = append(via, "--gateway", shellQuoted(*o.gateway))
		if *o.tokens.file != "" {
			via = append(via, "--token-file", shellQuoted(*o.tokens.file))
		}
	} else {
		o.VisitAll(func(fl *flag.Flag) {
			if o.onCommandLine[fl.Name] && (fl.Name == "config" || strings.HasPrefix(fl.Name, "nats-")) {
				via = append(via, "--"+fl.Name, shellQuoted(redactURLs([]string{fl.Value.String()})[0]))
			}
		})
	}
	if len(via) == 0 {
		return ""
	}
	return strings.Join(via, " ") + " "
}
