package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/user"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corral-farm/corral/broker"
)

// The operator actions (release --force, drain, tasks) speak to NATS directly, with the admin's
// NATS credentials (tasks: the operator's too): no MCP tool offers them, so an agent's gateway
// token cannot take a device from its holder or a node out of service. They take --gateway as
// the other commands do and answer that they need NATS; the holder's own release (--lease-file, $CORRAL_LEASE)
// takes the agent's path, release_device, through a gateway or the in-process front door.

// adminFlags are the flags of the operator actions: an operator command's, with a --timeout
// of their own.
type adminFlags struct {
	*operatorFlags
}

// newAdminFlags makes the flags of the operator action name; gatewayHelp says what it does with
// --gateway, which differs from one action to the next.
func newAdminFlags(name string, timeout time.Duration, gatewayHelp string) *adminFlags {
	f := newFlags(name)
	return &adminFlags{&operatorFlags{flags: f, nats: f.natsFlags(),
		gateway:        f.String("gateway", "", gatewayHelp),
		tokens:         f.tokenFlag(),
		timeout:        f.Duration("timeout", timeout, "give up after this long"),
		timeoutDefault: timeout.String()}}
}

// needsNATS refuses --gateway for an operator action (a usage error: badValue), saying why and
// what to use instead.
func (a *adminFlags) needsNATS(what, why, instead string) error {
	if *a.gateway != "" && a.natsContextWins() {
		*a.gateway = "" // an exported CORRAL_GATEWAY is for the other commands (gatewayambient.go)
	}
	if *a.gateway == "" {
		return nil
	}
	msg := fmt.Sprintf("%s talks to NATS directly, with an operator's NATS access: instead of --gateway %s, pass --nats-context with the admin's "+
		"context (%s), or set NATS_CONTEXT to it; %s", what, *a.gateway, adminContextHint, why)
	if instead != "" {
		msg += "; " + instead
	}
	return badValue(errors.New(msg))
}

// adminContextHint says where the admin's NATS context is: corral up writes it into its --data
// directory, corral nats-auth into its --dir.
const adminContextHint = "corral up writes DATA/nats/admin.json, e.g. --nats-context data/nats/admin.json; corral nats-auth writes DIR/admin.json"

// notForAgents is why the operator actions that change things have no gateway path.
const notForAgents = "no gateway tool offers it, so that an agent's token cannot do it"

// forceNotForAgents is why release --force has no gateway path: the console's Force release is
// its only one, for a logged-in operator the policy lets abort (it aborts the running task).
const forceNotForAgents = "no gateway tool offers it; through a gateway only the console's Force release does it, for an operator whose tools include abort_task"

// startArgs is start with the flags given before or after the positional arguments.
func (a *adminFlags) startArgs(args []string, check func() error, viaNATS func() bool) (stop bool, err error) {
	a.positional = true
	return a.startVia(flagsFirst(a.FlagSet, args), check, viaNATS)
}

// always is the viaNATS of an operator action that talks to NATS whatever its flags.
func always() bool { return true }

// open connects to NATS and opens the farm's stores, the registry and the event stream at
// once (release --force, devices forget): the others on first use.
func (a *adminFlags) open(ctx context.Context) (*nats.Conn, *broker.Stores, *slog.Logger, error) {
	return a.openStores(ctx, broker.RegistryStore, broker.EventsStore)
}

// openStores connects to NATS and binds to the farm's stores as they are, those of now at
// once (broker.OpenStores): an operator's NATS user may read them, not create them, and a
// command with no farm to read says so rather than making one's stores.
func (a *adminFlags) openStores(ctx context.Context, now ...broker.Store) (*nats.Conn, *broker.Stores, *slog.Logger, error) {
	log, err := a.logger()
	if err != nil {
		return nil, nil, nil, err
	}
	nc, err := cliConnect(ctx, a.nats, log)
	if err != nil {
		return nil, nil, nil, err
	}
	stores, err := broker.OpenStores(ctx, nc, now...)
	if err != nil {
		nc.Close()
		return nil, nil, nil, err
	}
	return nc, stores, log, nil
}

// operatorName names who runs the command, for the event stream: --by, or user@host.
func operatorName(by string) string {
	if by != "" {
		return by
	}
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	if name == "" {
		name = "unknown"
	}
	if host, err := os.Hostname(); err == nil && host != "" {
		name += "@" + host
	}
	return "operator " + name
}

func runRelease(ctx context.Context, args []string) error {
	a := newAdminFlags("release", 30*time.Second, "a gateway's MCP endpoint, e.g. http://127.0.0.1:8420/mcp: only the holder's own release (release --lease-file) works through one; the operator actions need NATS")
	force := a.Bool("force", false, "revoke the lease whoever holds it (an operator action, recorded with --by)")
	lease := a.leaseFlags("to give back", "file holding the lease handle to give back (the holder's own release); a group's handle gives back the whole group")
	handle := lease.handle
	by := a.String("by", "", "who does it, for the event stream (default: operator USER@HOST)")
	a.Usage = commandUsage(a.flags, releaseUsage, "Ends the lease of device SERIAL: its holder gives it back (--lease-file, $CORRAL_LEASE), "+
		"or an operator revokes it (--force, through NATS).")
	check := func() error {
		if err := lease.check(a.operatorFlags); err != nil {
			return err
		}
		if a.NArg() != 1 || *force == (*handle != "") {
			return fmt.Errorf("usage: %s", releaseUsage)
		}
		if !*force {
			return nil
		}
		return a.needsNATS("release --force (an operator revoking someone's lease)", forceNotForAgents,
			"the holder gives its own lease back with `corral release SERIAL --lease-file FILE --gateway URL`")
	}
	viaNATS := func() bool { return *force || *a.gateway == "" }
	if stop, err := a.startArgs(args, check, viaNATS); err != nil || stop {
		return err
	}
	serial := a.Arg(0)
	if !*force {
		// The holder's own release takes the agent's path, through a gateway or the in-process
		// front door alike: release_device, which gives a group handle's whole group back.
		res, err := a.callTool(ctx, "release_device", map[string]any{"serial": serial, "lease": *handle})
		if err != nil {
			return withHint(err, "`corral leases` lists the leases held")
		}
		fmt.Println(resultText(res))
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, *a.timeout)
	defer cancel()
	nc, stores, log, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer nc.Close()
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	farm, err := broker.NewClient(cctx, nc, stores, cliClientOptions(log))
	if err != nil {
		return err
	}
	if err := farm.WaitReady(ctx); err != nil {
		return err
	}
	who := operatorName(*by)
	ans, err := farm.Release(ctx, broker.ReleaseRequest{V: broker.WireVersion, Serial: serial, Force: true, By: who})
	if err != nil {
		return err
	}
	if !ans.OK {
		return fmt.Errorf("%s (%s); `corral leases` lists the leases held", ans.Error, ans.Code)
	}
	l := ans.Lease
	fmt.Printf("Revoked the lease of %s held by %s (epoch %d): forced release by %s.\n", serial, l.Holder, l.Epoch, who)
	fmt.Printf("Recorded on %s; the holder's running task, if any, was aborted and its handle no longer works.\n",
		fmt.Sprintf(broker.EventLeaseT, l.Node, broker.Token(serial), "revoked"))
	return nil
}

// releaseUsage is corral release's command lines.
const releaseUsage = "corral release SERIAL --force [--by WHO]   or   corral release SERIAL --lease-file FILE (or $CORRAL_LEASE)"

// readSecretFile reads a secret (a token, a lease handle) from a file named by flag.
func readSecretFile(flag, path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", flag, err)
	}
	v := strings.TrimSpace(string(b))
	if v == "" {
		return "", fmt.Errorf("%s %s is empty", flag, path)
	}
	return v, nil
}

func runDrain(ctx context.Context, args []string) error {
	a := newAdminFlags("drain", 10*time.Minute, "refused: drain talks to NATS directly, with the admin's NATS context (--nats-context DATA/nats/admin.json or $NATS_CONTEXT); "+
		"no gateway tool drains a node or reads its drain, so that an agent's token cannot")
	undo := a.Bool("undo", false, "take new work again")
	status := a.Bool("status", false, "only report the node's drain")
	wait := a.Bool("wait", false, "wait (up to --timeout) until no task runs, no lease is held and nothing waits on the node")
	by := a.String("by", "", "who does it, for the event stream (default: operator USER@HOST)")
	const line = "corral drain NODE [--undo | --status] [--wait] [--by WHO]"
	a.Usage = commandUsage(a.flags, line, summary("drain"))
	check := func() error {
		if a.NArg() != 1 || *undo && *status {
			return fmt.Errorf("usage: %s", line)
		}
		return a.needsNATS("drain (taking a node out of service, or reading its drain)", notForAgents, "")
	}
	if stop, err := a.startArgs(args, check, always); err != nil || stop {
		return err
	}
	node := a.Arg(0)
	action := broker.DrainStart
	switch {
	case *undo:
		action = broker.DrainUndo
	case *status:
		action = broker.DrainStatus
	}
	ctx, cancel := context.WithTimeout(ctx, *a.timeout)
	defer cancel()
	log, err := a.logger()
	if err != nil {
		return err
	}
	nc, err := cliConnect(ctx, a.nats, log)
	if err != nil {
		return a.gaveUp(ctx, "no connection to NATS", err)
	}
	defer nc.Close()
	req := broker.DrainRequest{V: broker.WireVersion, Action: action, By: operatorName(*by)}
	ans, err := broker.DrainNode(ctx, nc, node, req)
	if err != nil && action == broker.DrainStart && errors.Is(ctx.Err(), context.Canceled) {
		return drainAskInterrupted(nc, node, err)
	}
	if err != nil {
		return a.gaveUp(ctx, "node "+node+" did not answer", err)
	}
	fmt.Println(drainText(ans))
	if !*wait {
		return nil
	}
	req.Action = broker.DrainStatus
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	// stopped says why the wait ended, with the node's last answer: Ctrl-C or --timeout (also
	// when the deadline comes during a status request: the last answer stands).
	stopped := func() error {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) { // Ctrl-C, not --timeout
			return drainInterrupted(node, ans)
		}
		return fmt.Errorf("node %s is not idle after --timeout %s: %s; `corral leases` shows who holds its devices, "+
			"`corral release SERIAL --force` ends a lease", node, *a.timeout, strings.TrimSuffix(drainText(ans), "."))
	}
	for !ans.Idle() {
		select {
		case <-ctx.Done():
			return stopped()
		case <-tick.C:
		}
		next, err := broker.DrainNode(ctx, nc, node, req)
		if err != nil && ctx.Err() != nil {
			return stopped()
		}
		if err != nil {
			return a.gaveUp(ctx, "node "+node+" did not answer", err)
		}
		ans = next
	}
	fmt.Printf("node %s is idle: nothing runs, is held or waits on it.\n", node)
	return nil
}

// drainInterrupted is drain --wait stopped by a signal: the wait ends, the drain does not.
func drainInterrupted(node string, last broker.DrainAnswer) error {
	return fmt.Errorf("interrupted before it was idle: %s; it stays draining (`corral drain %s --status` shows it, "+
		"`corral drain %s --undo` takes new work again)", strings.TrimSuffix(drainText(last), "."), node, node)
}

// drainAskInterrupted is a drain stopped by a signal before the node's answer came: the node
// may have taken it, so it asks the node's state (briefly, past the signal) and says it.
func drainAskInterrupted(nc *nats.Conn, node string, err error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	st, serr := broker.DrainNode(ctx, nc, node, broker.DrainRequest{V: broker.WireVersion, Action: broker.DrainStatus})
	switch {
	case serr != nil:
		return fmt.Errorf("interrupted before node %s answered (%w); it may be draining: `corral drain %s --status` shows it", node, err, node)
	case !st.Draining:
		return fmt.Errorf("interrupted before node %s took the drain: %s", node, drainText(st))
	}
	return drainInterrupted(node, st)
}

// gaveUp tells an error that came of the command's --timeout passing as that: what had not
// happened by then, and what to do.
func (a *adminFlags) gaveUp(ctx context.Context, what string, err error) error {
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("gave up after --timeout %s: %s (%w); raise --timeout, or check that it runs (corral devices --node NODE)", *a.timeout, what, err)
}

// drainText tells a node's drain state in one line.
func drainText(a broker.DrainAnswer) string {
	counts := fmt.Sprintf("%s, %s, %s, %d queued", counted(a.Devices, "device", "devices"), counted(a.Running, "task running", "tasks running"),
		counted(a.Leases, "lease held", "leases held"), a.Queued)
	if !a.Draining {
		return fmt.Sprintf("node %s takes new work (not draining): %s.", a.Node, counts)
	}
	s := fmt.Sprintf("node %s is draining (since %s, by %s): %s", a.Node, a.Since.Local().Format(time.TimeOnly), a.By, counts)
	if a.Refused > 0 {
		s += fmt.Sprintf("; %d waiting callers refused", a.Refused)
	}
	return s + "."
}

func runTasks(ctx context.Context, args []string) error {
	a := newAdminFlags("tasks", 30*time.Second, "refused: the task history is read from NATS (--nats-context DATA/nats/admin.json or operator.json, or $NATS_CONTEXT); "+
		"through a gateway, corral tasks export TASK_ID --gateway URL and corral call --gateway URL get_task_result read one task's record")
	serial := a.String("serial", "", "only this device's tasks")
	outcome := a.String("outcome", "", "only tasks that ended so: "+strings.Join(broker.Outcomes, ", "))
	tool := a.String("tool", "", "only this tool's tasks")
	since := a.Duration("since", 0, "only tasks recorded within this long, e.g. 1h (0: any)")
	limit := a.Int("limit", 20, "show at most this many, newest first")
	scan := a.Int("scan", broker.DefaultMaxScan, "read at most this many task records, the newest, to find them (0: every one the stream keeps, back to --since)")
	asJSON := a.Bool("json", false, "print the records as JSON lines")
	check := func() error {
		if a.NArg() != 0 {
			if err := unknownSubcommand("tasks", "subcommand", a.Arg(0), []string{"export"}); err != nil {
				return err // corral tasks exprot ID
			}
			return fmt.Errorf("usage: corral tasks [--serial S] [--outcome O] [--tool T] [--since D] [--limit N] [--scan N] [--json], " +
				"or corral tasks export TASK_ID [--gateway URL] [--out FILE]")
		}
		if err := knownValue("outcome", *outcome, broker.Outcomes, "use one of "+strings.Join(broker.Outcomes, ", ")); err != nil {
			return err
		}
		if err := knownTool(*tool); err != nil {
			return err
		}
		if *limit <= 0 {
			return badValue(fmt.Errorf("--limit %d: give a positive number", *limit))
		}
		if *since < 0 {
			return badValue(fmt.Errorf("--since %s: give how far back to look as a positive duration, e.g. 1h (0 or none: any time)", *since))
		}
		if *scan < 0 {
			return badValue(fmt.Errorf("--scan %d: give how many task records to read at most (0: all the stream keeps)", *scan))
		}
		return a.needsNATS("tasks (reading task history from the event stream)", "no gateway tool lists the task history",
			"through the gateway, `corral call --gateway URL get_task_result '{\"task_id\":\"…\"}'` reads one task's record")
	}
	if err := tasksExportFirst(a.FlagSet, args); err != nil { // corral tasks --out F export ID
		return err
	}
	if stop, err := a.startArgs(args, check, always); err != nil || stop {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *a.timeout)
	defer cancel()
	nc, stores, _, err := a.openStores(ctx, broker.EventsStore)
	if err != nil {
		return err
	}
	defer nc.Close()
	q := broker.HistoryQuery{Serial: *serial, Outcome: *outcome, Tool: *tool, Limit: *limit, MaxScan: *scan}
	if *scan == 0 {
		q.MaxScan = -1 // all
	}
	if *since > 0 {
		q.Since = time.Now().Add(-*since)
	}
	h, err := stores.TaskHistory(ctx, q)
	if err != nil {
		return err
	}
	if note := newerTasksNote(h); note != "" {
		fmt.Fprintln(os.Stderr, note)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		for _, r := range h.Tasks {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
	} else {
		w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "TASK\tFINISHED\tSERIAL\tNODE\tTOOL\tOUTCOME\tCODE\tMS\tHOLDER\tERROR")
		for _, r := range h.Tasks {
			ms := int64(0)
			if !r.Started.IsZero() && r.Finished.After(r.Started) {
				ms = r.Finished.Sub(r.Started).Milliseconds()
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", r.ID, r.Finished.Local().Format(time.DateTime), r.Serial, r.Node,
				r.Tool, r.Outcome, cmp.Or(r.Code, "-"), ms, r.Holder, oneLine(r.Error, 80))
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if len(h.Tasks) < *limit && !h.Complete {
		fmt.Fprintln(os.Stderr, scanNote(h.Scanned, h.Oldest))
	}
	return nil
}

// scanNote says where corral tasks stopped reading and how to read further back.
func scanNote(scanned int, oldest time.Time) string {
	back := ""
	if !oldest.IsZero() {
		back = fmt.Sprintf(", back to %s (%s ago)", oldest.Local().Format(time.DateTime), time.Since(oldest).Round(time.Second))
	}
	return fmt.Sprintf("(searched the newest %d task records%s; older ones were not read: --scan %d reads ten times as many, "+
		"--scan 0 all the stream keeps (--since D stops at D ago); a long search may need a longer --timeout)", scanned, back, 10*max(scanned, 1))
}

// oneLine shortens s to one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
