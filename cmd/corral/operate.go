package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/httpsent"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/mcp/steps"
)

// The operator commands speak MCP, through a gateway (--gateway) or through an in-process
// front door over NATS (--nats-url): both take the same path as an agent's call.

type operatorFlags struct {
	*flags
	gateway *string
	tokens  tokenSource
	nats    natsFlags
	timeout *time.Duration
	// timeoutDefault says what a command given no --timeout waits, for the refusal of a bad one.
	timeoutDefault string
	// taskIDWait bounds how long an interrupted corral call --gateway waits for its task's id
	// (withTaskID).
	taskIDWait time.Duration
	// abortsBy, when set, is who the in-process front door's aborts are by (abort_by.go).
	abortsBy string
	// cli is the in-process front door's farm once dialled (nil through --gateway).
	cli *cliFarm
}

func newOperatorFlags(name string) *operatorFlags {
	f := newFlags(name)
	help, without := timeoutHelp(name)
	return &operatorFlags{flags: f,
		gateway:        f.String("gateway", "", "a gateway's MCP endpoint, e.g. http://127.0.0.1:8420/mcp (default: talk to NATS directly)"),
		tokens:         f.tokenFlag(),
		nats:           f.natsFlags(),
		timeout:        f.Duration("timeout", 0, help),
		timeoutDefault: without,
		taskIDWait:     defaultTaskIDWait,
	}
}

// timeoutHelp is the --timeout help of operator command name, and what it waits without one.
func timeoutHelp(name string) (help, without string) {
	farm := defaultCallTimeout.String()
	switch name {
	case "call":
		return "give up after this long, stopping the call (default: what the call may take on its device: " +
				"its wait_seconds, then its timeout_ms or the tool's own deadline, plus " + callMargin.String() + "; " + farm + " for the farm's own tools)",
			"what the call may take on its device"
	case "devices", "leases":
		return "give up after this long, the list unfinished (default: " + farm + ")", farm
	case "abort":
		return "give up after this long waiting for the device's node to answer (default: " + farm + ")", farm
	case "tasks export":
		return "give up after this long reading the task's record (default: " + farm + ")", farm
	}
	return "give up after this long, stopping the rig (default: what the rig may take, plus " + callMargin.String() + ")",
		"what the rig may take" // arm calibrate, arm recover
}

// dial returns an initialized MCP client and a function that closes it.
func (o *operatorFlags) dial(ctx context.Context) (*client.Client, func(), error) {
	if *o.gateway != "" {
		c, err := o.tokens.dialGateway(ctx, *o.gateway, "corral-cli")
		if err != nil {
			return nil, nil, err
		}
		return c, func() { _ = c.Close() }, nil
	}
	log, err := o.logger()
	if err != nil {
		return nil, nil, err
	}
	log, quiet := quietable(log)
	nc, err := cliConnect(ctx, o.nats, log)
	if err != nil {
		return nil, nil, err
	}
	// The farm's stores as they are: what the front door reads at once, the other buckets when
	// a tool reads them (broker.OpenStores).
	stores, err := broker.OpenStores(ctx, nc, broker.ClientStores...)
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	cctx, cancel := context.WithCancel(ctx)
	closeNATS := func() { quiet.Store(true); cancel(); nc.Close() }
	nf, err := broker.NewClient(cctx, nc, stores, cliClientOptions(log))
	if err == nil {
		err = nf.WaitReady(ctx)
	}
	if err != nil {
		closeNATS()
		return nil, nil, err
	}
	farm := newCLIFarm(nf, stores.JS)
	o.cli = farm
	var front mcp.Farm = farm
	if o.abortsBy != "" {
		front = abortingAs{farm, o.abortsBy}
	}
	g := mcp.New(front, log, mcp.NewMetrics(newRegistry()), mcp.Options{Platforms: platforms()})
	c, err := client.NewInProcessClient(g.MCPServer())
	if err != nil {
		closeNATS()
		return nil, nil, fmt.Errorf("MCP client: %w", err)
	}
	if err := initialize(ctx, c, cliClientName); err != nil {
		_ = c.Close()
		closeNATS()
		return nil, nil, err
	}
	return c, func() {
		_ = c.Close()
		// A task started without waiting must reach its node before the connection goes.
		sctx, stop := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
		defer stop()
		farm.settle(sctx)
		farm.keepLatest(sctx) // the latest task's id, for the next command's get_latest_task
		closeNATS()
	}, nil
}

// settleTimeout bounds how long a command waits, once done, for the tasks it started to reach
// their nodes.
const settleTimeout = 10 * time.Second

// callTool runs one tool and returns its result; isError results become errors.
func (o *operatorFlags) callTool(ctx context.Context, tool string, args map[string]any) (*mcpgo.CallToolResult, error) {
	return o.callToolProgress(ctx, tool, args, nil)
}

// callToolProgress is callTool telling progress each progress message of the call.
func (o *operatorFlags) callToolProgress(ctx context.Context, tool string, args map[string]any, progress func(msg string)) (*mcpgo.CallToolResult, error) {
	d, given := o.callTimeout(tool, args)
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	res, err := o.callToolOn(ctx, tool, args, progress)
	return res, o.gaveUp(ctx, tool, d, given, err)
}

// callToolOn dials and runs one tool within ctx (callToolProgress).
func (o *operatorFlags) callToolOn(ctx context.Context, tool string, args map[string]any, progress func(msg string)) (*mcpgo.CallToolResult, error) {
	c, closeAll, err := o.dial(ctx)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	if progress != nil {
		req.Params.Meta = &mcpgo.Meta{ProgressToken: "corral-cli"}
		c.OnNotification(func(n mcpgo.JSONRPCNotification) {
			if msg, ok := n.Params.AdditionalFields["message"].(string); ok && n.Method == string(mcpgo.MethodNotificationProgress) {
				progress(msg)
			}
		})
	}
	return callOn(ctx, c, req)
}

// callOn sends one tools/call on an open client; isError results become errors.
func callOn(ctx context.Context, c *client.Client, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", req.Params.Name, err)
	}
	if res.IsError {
		return res, fmt.Errorf("%s", resultText(res))
	}
	return res, nil
}

func resultText(res *mcpgo.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(mcpgo.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// structured decodes a result's structured content into v.
func structured(res *mcpgo.CallToolResult, v any) error {
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func runCall(ctx context.Context, args []string) error {
	return runCallWaiting(ctx, args, defaultTaskIDWait)
}

// runCallWaiting is corral call, an interrupted call through --gateway waiting up to
// taskIDWait for its task's id.
func runCallWaiting(ctx context.Context, args []string, taskIDWait time.Duration) error {
	o := newOperatorFlags("call")
	o.taskIDWait = taskIDWait
	out := o.String("out", "", "write an image result to this file, as the tool sent it (JPEG; PNG when asked, e.g. take_screenshot {\"format\":\"png\"}); "+
		"several images go to FILE-1.EXT, FILE-2.EXT, …; - writes the one image to standard output and the text to standard error; "+
		"a result with no image writes nothing and fails")
	o.Usage = func() {
		fmt.Fprintf(o.Output(), "usage: %s\n\nCalls one tool through the farm, as an agent would (README: Try it from the command line), e.g.\n"+
			"  corral call tap_xy '{\"serial\":\"sim-local-01\",\"x\":0.5,\"y\":0.5}'\n"+
			"  corral call --out shot.jpg screenshot '{\"serial\":\"sim-local-01\"}'\n"+
			"$CORRAL_LEASE fills the lease of a tool that takes one when the arguments give none.\n\nflags:\n", callUsage)
		o.PrintDefaults()
	}
	o.positional = true // TOOL and its arguments
	var toolArgs map[string]any
	stop, err := o.start(flagsFirst(o.FlagSet, args), func() error {
		rest := o.Args()
		if len(rest) < 1 || len(rest) > 2 {
			return fmt.Errorf("usage: %s", callUsage)
		}
		var err error
		if toolArgs, err = callArgs(rest[1:]); err != nil {
			return err
		}
		warnArgvSecrets(os.Stderr, rest[0], rest[1:], toolArgs)
		// An image that cannot be written there is told before the tool runs, not after.
		return checkOutFile("--out", *out, "the image", "shot.jpg")
	})
	if err != nil || stop {
		return err
	}
	tool := o.Arg(0)
	d, given := o.callTimeout(tool, toolArgs)
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	res, err := o.callOnce(ctx, tool, toolArgs)
	err = o.interrupted(ctx, tool, toolArgs, o.gaveUpOn(ctx, tool, toolArgs, d, given, err))
	if err != nil {
		return callError(tool, toolArgs, err)
	}
	return printCallResult(tool, res, *out)
}

// callUsage is corral call's command line.
const callUsage = "corral call [flags] TOOL ['{json arguments}' | -]   (flags go before TOOL; - reads the arguments from standard input)"

// callOnce dials and calls tool within ctx, the holder's lease from $CORRAL_LEASE when the
// tool takes one and the arguments name none.
func (o *operatorFlags) callOnce(ctx context.Context, tool string, toolArgs map[string]any) (*mcpgo.CallToolResult, error) {
	c, closeAll, err := o.dial(ctx)
	if err != nil {
		return nil, beforeSending(err)
	}
	defer closeAll()
	var cat *steps.Catalog
	fromEnv := false
	if lease := strings.TrimSpace(os.Getenv("CORRAL_LEASE")); lease != "" && toolArgs["lease"] == nil {
		// The holder's handle from the environment, not from argv (where ps shows it), for a
		// tool that takes one.
		if cat, err = steps.FetchCatalog(ctx, c); err != nil {
			return nil, beforeSending(err)
		}
		if cat.Takes(tool, "lease") {
			if toolArgs == nil {
				toolArgs = map[string]any{}
			}
			toolArgs["lease"] = lease
			fromEnv = true
		}
	}
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, toolArgs
	callCtx, sent := httpsent.Trace(ctx)
	serial, _ := toolArgs["serial"].(string)
	call := sentCall{tool: tool, serial: serial, began: time.Now()}
	res, err := callOn(callCtx, c, req)
	if err == nil && o.cli != nil {
		res = o.cli.latestNotKept(ctx, tool, toolArgs, res, o.sameFarm())
		res = o.cli.abortNotKept(ctx, tool, toolArgs, res, o.sameFarm())
	}
	if lost := lostCall(ctx, tool, toolArgs, err, sent.Load()); lost != nil {
		return nil, lost
	}
	if fromEnv && res != nil && res.IsError && leaseRefused(err) {
		err = fmt.Errorf("%w\n(the lease sent was $CORRAL_LEASE's, which corral call adds to every tool that takes one: "+
			"for a device that lease does not hold, unset CORRAL_LEASE or give the call its own \"lease\")", err)
	}
	if err != nil && res == nil && ctx.Err() == nil {
		if cat == nil {
			cat, _ = steps.FetchCatalog(ctx, c)
		}
		if cat != nil && !cat.Has(tool) {
			if local, lerr := localCatalog(); lerr == nil {
				cat.Known(local.Names()) // a tool its --tools profile or policy hides is not one it lacks (as corral run says)
			}
			return nil, cat.Check(tool, nil) // names the nearest tool
		}
	}
	// Its id for the hint of an interrupted call, or one that ran out of time (interrupted, gaveUp).
	if *o.gateway != "" {
		err = withTaskID(ctx, c, call, err, o.taskIDWait)
	} else {
		err = o.cli.withTaskID(ctx, err)
	}
	return res, err
}

// leaseRefused says whether a tool's error is the refusal of the lease it was sent, by its
// stable code (the node's and the gateway's refusals say "refused (stale_lease)") or, for a
// group handle, the gateway's words of it, not any error that names a lease (an unknown
// argument lists "lease" among those the tool takes).
func leaseRefused(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "("+broker.CodeStaleLease+")") ||
		strings.Contains(msg, "lease group") || strings.Contains(msg, "no lease group has this handle")
}

// callArgs reads a call's JSON arguments: the argument given, standard input for "-", none.
func callArgs(rest []string) (map[string]any, error) {
	if len(rest) == 0 {
		return nil, nil
	}
	raw := []byte(rest[0])
	if rest[0] == "-" {
		var err error
		if raw, err = io.ReadAll(os.Stdin); err != nil {
			return nil, fmt.Errorf("read the arguments from standard input: %w", err)
		}
	}
	// Arguments that are no JSON object are a command line corral call does not take: exit 2.
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		if rest[0] == "-" { // the decoder's words alone do not say that stdin was read
			if len(strings.TrimSpace(string(raw))) == 0 {
				return nil, badValue(errors.New("standard input (-) was empty: give the arguments there as a JSON object, e.g. {\"serial\":\"S\"}"))
			}
			return nil, badValue(fmt.Errorf("the arguments read from standard input (-) must be a JSON object, e.g. {\"serial\":\"S\"}: %w", err))
		}
		return nil, badValue(fmt.Errorf("arguments must be a JSON object, e.g. '{\"serial\":\"S\"}': %w", err))
	}
	args, ok := v.(map[string]any)
	if !ok {
		from := ""
		if rest[0] == "-" {
			from = " (read from standard input)"
		}
		return nil, badValue(fmt.Errorf("arguments must be a JSON object%s, got %s: give them by name, e.g. '{\"x\":0.5,\"y\":0.5}'", from, jsonKindOf(v)))
	}
	return args, nil
}

// jsonKindOf names the kind of a decoded JSON value: "an array", "a string", ...
func jsonKindOf(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "an object"
}

func runAbort(ctx context.Context, args []string) error {
	o := newOperatorFlags("abort")
	all := o.Bool("all", false, "also drop the holder's queued tasks")
	by := o.String("by", "", "who does it, for the task record and the event stream (default: operator USER@HOST; "+
		"through --gateway: the token's principal)")
	o.Usage = commandUsage(o.flags, abortUsage, "Aborts the task running on device SERIAL (its holder's call ends with an error).")
	o.positional = true // SERIAL
	check := func() error {
		if *by != "" && *o.gateway != "" {
			return badValue(fmt.Errorf("--by %q with --gateway %s: through a gateway the abort is recorded as by your token's principal; "+
				"drop --by, or abort through NATS with the admin's context (--nats-context, %s)", *by, *o.gateway, adminContextHint))
		}
		return o.oneArg(abortUsage)()
	}
	if stop, err := o.start(flagsFirst(o.FlagSet, args), check); err != nil || stop {
		return err
	}
	o.abortsBy = operatorName(*by)
	res, err := o.callTool(ctx, "abort_task", map[string]any{"serial": o.Arg(0), "all": *all})
	if err != nil {
		return err
	}
	fmt.Println(resultText(res))
	return nil
}

// abortUsage is corral abort's command line.
const abortUsage = "corral abort [--all] [--by WHO] SERIAL"

// oneArg is the check of a command that takes one argument, usage its command line.
func (o *operatorFlags) oneArg(usage string) func() error {
	return func() error {
		if o.NArg() != 1 {
			return fmt.Errorf("usage: %s", usage)
		}
		return nil
	}
}

// commandUsage prints a command's line, what it does and its flags, for -h.
func commandUsage(f *flags, line, what string) func() {
	return func() {
		fmt.Fprintf(f.Output(), "usage: %s\n\n%s\n\nflags:\n", line, what)
		f.PrintDefaults()
	}
}
