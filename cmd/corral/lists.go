package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/mcp"
)

// `corral devices` and `corral leases` page through list_available_devices and list_leases
// with the filters their flags give, and print every row, then a summary of all that match.

// listFlags are the list tools' filters and how much to print.
type listFlags struct {
	platform, state, tags, model, node *string
	limit                              *int
	asJSON                             *bool
}

func newListFlags(o *operatorFlags, what string) listFlags {
	return listFlags{
		platform: o.String("platform", "", "only "+what+" of this platform: android, ios, web, arm"),
		state:    o.String("state", "", "only "+what+" in this state: "+strings.Join(broker.States, ", ")),
		tags:     o.commaList("tags", "", "only "+what+" with all these tags, comma-separated"),
		model:    o.String("model", "", "only "+what+" of this model (any case)"),
		node:     o.String("node", "", "only "+what+" on this node"),
		limit:    o.Int("limit", 0, "print at most this many rows (0: all, fetched a page at a time)"),
		asJSON:   o.Bool("json", false, "print JSON: the rows of every page in one answer, with the summary"),
	}
}

// args are the tool arguments of the flags; a bad value is refused here, before any call
// (start's check, which names where it came from: CORRAL_LIMIT, the --config file).
func (l listFlags) args() (map[string]any, error) {
	if *l.limit < 0 {
		return nil, badValue(fmt.Errorf("--limit %d: give 0 (all) or a positive number", *l.limit))
	}
	if *l.state != "" && !slices.Contains(broker.States, *l.state) {
		return nil, badValue(fmt.Errorf("--state %q: use one of %s", *l.state, strings.Join(broker.States, ", ")))
	}
	if err := knownPlatform(*l.platform); err != nil {
		return nil, err
	}
	tags := tagList(*l.tags)
	if err := mcp.CheckDeviceFilter(*l.platform, *l.state, tags, *l.model, *l.node); err != nil {
		return nil, badValue(err) // the gateway would refuse them so; a flag's value is a usage error
	}
	a := map[string]any{"limit": mcp.MaxPageLimit}
	for name, v := range map[string]string{"platform": *l.platform, "state": *l.state, "model": *l.model, "node": *l.node} {
		if v != "" {
			a[name] = v
		}
	}
	if len(tags) > 0 {
		a["tags"] = tags
	}
	return a, nil
}

// tagList splits --tags at commas, and at spaces within them ("lab, sim-card" is two tags).
// An empty one between commas (",,", "lab,") stays, as "", for CheckDeviceFilter to refuse:
// dropped, the filter would keep every device. No tags at all is no filter.
func tagList(v string) []string {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	var tags []string
	for _, part := range strings.Split(v, ",") {
		if words := strings.Fields(part); len(words) > 0 {
			tags = append(tags, words...)
		} else {
			tags = append(tags, "")
		}
	}
	return tags
}

// eachPage calls a list tool with args, then again with each page's next_cursor, until the
// last page or until want items came (0: all). page decodes a page: its next cursor and items.
// then, when not nil, runs on the same client after the last page.
func (o *operatorFlags) eachPage(ctx context.Context, tool string, args map[string]any, want int,
	page func(*mcpgo.CallToolResult) (next string, items int, err error), then func(context.Context, *client.Client) error) error {
	d, given := o.callTimeout(tool, args)
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	err := o.eachPageOn(ctx, tool, args, want, page, then)
	return o.gaveUp(ctx, tool, d, given, err)
}

// eachPageOn dials and pages within ctx (eachPage).
func (o *operatorFlags) eachPageOn(ctx context.Context, tool string, args map[string]any, want int,
	page func(*mcpgo.CallToolResult) (next string, items int, err error), then func(context.Context, *client.Client) error) error {
	c, closeAll, err := o.dial(ctx)
	if err != nil {
		return err
	}
	defer closeAll()
	if err := o.pages(ctx, c, tool, args, want, page); err != nil || then == nil {
		return err
	}
	return then(ctx, c)
}

// pages calls a list tool page after page on c (eachPage). A gateway older than paging refuses
// the page size this CLI sends of itself: the call is made again without it, and that gateway
// answers every row at once (the caller cuts them to --limit).
func (o *operatorFlags) pages(ctx context.Context, c *client.Client, tool string, args map[string]any, want int,
	page func(*mcpgo.CallToolResult) (next string, items int, err error)) error {
	sized := true
	for got := 0; ; {
		if want > 0 && sized {
			args["limit"] = min(mcp.MaxPageLimit, want-got)
		}
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, args
		res, err := callOn(ctx, c, req)
		if arg, ok := refusedArg(err); ok {
			if arg == "limit" && sized {
				sized = false
				delete(args, "limit")
				continue
			}
			return olderGateway(err, arg)
		}
		if err != nil {
			return err
		}
		next, n, err := page(res)
		if err != nil {
			return fmt.Errorf("%s: %w", tool, err)
		}
		if got += n; next == "" || (want > 0 && got >= want) {
			return nil
		}
		args["cursor"] = next
	}
}

func runDevices(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "forget" {
		return runDevicesForget(ctx, args[1:])
	}
	o := newOperatorFlags("devices")
	lf := newListFlags(o, "devices")
	free := o.Bool("free", false, "only devices free to lease now (online)")
	var targs map[string]any
	if stop, err := o.start(args, func() (err error) { targs, err = lf.args(); return err }); err != nil || stop {
		return err
	}
	if *free {
		targs["free_only"] = true
	}
	all := mcp.DeviceListResult{AndroidDevices: []string{}, IOSDevices: []string{}, Devices: []mcp.DeviceSummary{}}
	var reasons map[string]string
	var reasonsErr error // told on stderr after the rows, which are printed all the same
	var summed bool
	err := o.eachPage(ctx, "list_available_devices", targs, *lf.limit, func(res *mcpgo.CallToolResult) (string, int, error) {
		var p mcp.DeviceListResult
		if err := structured(res, &p); err != nil {
			return "", 0, err
		}
		all.AndroidDevices = append(all.AndroidDevices, p.AndroidDevices...)
		all.IOSDevices = append(all.IOSDevices, p.IOSDevices...)
		all.Devices = append(all.Devices, p.Devices...)
		all.Summary, summed = p.Summary, summarized(res)
		return p.NextCursor, len(p.Devices), nil
	}, func(ctx context.Context, c *client.Client) error {
		if !summed { // reasons of the rows printed only
			all.Summary = devicesSummary(all.Devices)
			all.Devices = all.Devices[:min(len(all.Devices), cmp.Or(*lf.limit, len(all.Devices)))]
		}
		reasons, reasonsErr = deviceReasons(ctx, c, all.Devices)
		return nil
	})
	if err != nil {
		return err
	}
	if !summed {
		warnOlderGateway("devices", targs)
	}
	if reasonsErr != nil { // after the rows, in either form
		defer fmt.Fprintf(os.Stderr, "corral devices: %v\n", reasonsErr)
	}
	if *lf.asJSON {
		rows := make([]deviceRow, len(all.Devices))
		for i, d := range all.Devices {
			rows[i] = deviceRow{d, reasons[d.Serial]}
		}
		return printJSON(struct {
			mcp.DeviceListResult
			Devices []deviceRow `json:"devices"`
		}{all, rows})
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "SERIAL\tPLATFORM\tMODEL\tNODE\tSTATE\tHOLDER\tREASON")
	for _, d := range all.Devices {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.Serial, d.Platform, d.Model, d.Node, d.State, d.Holder, oneLine(reasons[d.Serial], 80))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Println(summaryLine("device", len(all.Devices), all.Summary))
	return nil
}

func runLeases(ctx context.Context, args []string) error {
	o := newOperatorFlags("leases")
	lf := newListFlags(o, "leases of devices")
	holder := o.String("holder", "", `only this holder's leases: a principal, "principal (client)" (all its sessions), or a holder as listed (one session)`)
	var targs map[string]any
	if stop, err := o.start(args, func() (err error) { targs, err = lf.args(); return err }); err != nil || stop {
		return err
	}
	if *holder != "" {
		targs["holder"] = *holder
	}
	all := mcp.LeasesResult{Leases: []mcp.LeaseInfo{}}
	var summed bool
	err := o.eachPage(ctx, "list_leases", targs, *lf.limit, func(res *mcpgo.CallToolResult) (string, int, error) {
		var p mcp.LeasesResult
		if err := structured(res, &p); err != nil {
			return "", 0, err
		}
		all.Leases = append(all.Leases, p.Leases...)
		all.Summary, summed = p.Summary, summarized(res)
		all.Unanswered = cmp.Or(p.Unanswered, all.Unanswered)
		return p.NextCursor, len(p.Leases), nil
	}, nil)
	if err != nil {
		return err
	}
	if !summed { // the leases carry no platform or state to count by
		all.Summary = mcp.ListSummary{Total: len(all.Leases)}
		all.Leases = all.Leases[:min(len(all.Leases), cmp.Or(*lf.limit, len(all.Leases)))]
		warnOlderGateway("leases", targs)
	}
	if *lf.asJSON {
		return printJSON(all)
	}
	now := time.Now()
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "SERIAL\tHOLDER\tEPOCH\tEXPIRES IN\tQUEUE")
	for _, l := range all.Leases {
		fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%d\n", l.Serial, l.Holder, l.Epoch, expiresIn(l.ExpiresAt, now), l.QueueLen)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Println(summaryLine("lease", len(all.Leases), all.Summary))
	if all.Unanswered != "" {
		// The list is partial: say so where a script's reader looks for trouble.
		fmt.Fprintf(os.Stderr, "corral leases: %s\n", all.Unanswered)
	}
	return nil
}

// deviceRow is a device as `corral devices --json` prints it: with the reason of its state.
type deviceRow struct {
	mcp.DeviceSummary
	Reason string `json:"reason,omitempty"`
}

// deviceReasons reads, with get_device_status, why each device that is not in service is so
// (unhealthy, offline, draining): the list tool leaves the reason out. A device whose reason
// could not be read is left without one and named in the error, which says why once; the
// others are still asked, unless the command's context ended (a NATS refusal ends it: its
// cause says which subject and what to do).
func deviceReasons(ctx context.Context, c *client.Client, devices []mcp.DeviceSummary) (map[string]string, error) {
	out := map[string]string{}
	var missed []string
	var first error
	for _, d := range devices {
		if d.State != broker.StateUnhealthy && d.State != broker.StateOffline && d.State != broker.StateDraining {
			continue
		}
		st, err := deviceStatus(ctx, c, d.Serial)
		if err != nil {
			if ctx.Err() != nil { // a NATS refusal or the --timeout ended the command: say which
				err = context.Cause(ctx)
			}
			missed = append(missed, d.Serial)
			first = cmp.Or(first, err)
			continue
		}
		out[d.Serial] = st.Reason
	}
	if len(missed) == 0 {
		return out, nil
	}
	return out, fmt.Errorf("no reason shown for %s: get_device_status: %w", serialList(missed), first)
}

// deviceStatus calls get_device_status of serial, unless ctx has ended.
func deviceStatus(ctx context.Context, c *client.Client, serial string) (mcp.DeviceStatusResult, error) {
	var st mcp.DeviceStatusResult
	if err := ctx.Err(); err != nil {
		return st, err
	}
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "get_device_status", map[string]any{"serial": serial}
	res, err := c.CallTool(ctx, req) // not callOn: the error names the tool once, in deviceReasons'
	switch {
	case err != nil:
		return st, err
	case res.IsError:
		return st, errors.New(resultText(res))
	}
	return st, structured(res, &st)
}

// serialList names a few serials, and how many more.
func serialList(serials []string) string {
	const shown = 5
	if len(serials) <= shown {
		return strings.Join(serials, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(serials[:shown], ", "), len(serials)-shown)
}

func printJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	fmt.Println(string(b))
	return nil
}

// summaryLine tells in one line how many noun (singular) match and how they spread over
// platforms, states and nodes, e.g. "3 devices: android 2, ios 1; leased 1, online 2; n1 2, n2 1".
func summaryLine(noun string, shown int, s mcp.ListSummary) string {
	if s.Total != 1 {
		noun += "s"
	}
	head := fmt.Sprintf("%d %s", s.Total, noun)
	if shown < s.Total {
		head = fmt.Sprintf("%d of %d %s shown (--limit; narrow with --platform, --state, --tags, --model, --node)", shown, s.Total, noun)
	}
	if s.Total == 0 || len(s.ByPlatform)+len(s.ByState)+len(s.ByNode) == 0 {
		return head
	}
	byNode := counts(s.ByNode)
	if s.OtherNodes > 0 {
		byNode += fmt.Sprintf(", %d on other nodes", s.OtherNodes)
	}
	return head + ": " + strings.Join([]string{counts(s.ByPlatform), counts(s.ByState), byNode}, "; ")
}

// counts lists a summary's counts by name: "android 2, ios 1".
func counts(m map[string]int) string {
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// expiresIn says how long until t, to the second, or "expired".
func expiresIn(t, now time.Time) string {
	d := t.Sub(now).Round(time.Second)
	if d <= 0 {
		return "expired"
	}
	return d.String()
}

// Skew: a gateway older than this CLI (docs/operations.md, Upgrades and version skew) may
// refuse an argument, or send no summary.

// unknownArg is how a gateway refuses an argument its tool does not take (tools.ArgProblem).
var unknownArg = regexp.MustCompile(`unknown argument "([^"]+)"`)

// refusedArg is the argument a tool call was refused for not taking, if it was.
func refusedArg(err error) (string, bool) {
	if err == nil {
		return "", false
	}
	m := unknownArg.FindStringSubmatch(err.Error())
	if m == nil {
		return "", false
	}
	return m[1], true
}

// argFlags are the flags of the list tools' arguments.
var argFlags = map[string]string{"platform": "--platform", "state": "--state", "tags": "--tags", "model": "--model",
	"node": "--node", "holder": "--holder", "free_only": "--free"}

// olderGateway explains a refusal of argument arg: the gateway predates it.
func olderGateway(err error, arg string) error {
	if flag, ok := argFlags[arg]; ok {
		return fmt.Errorf("%w\n(the gateway runs an older Corral than this corral, without %s: leave %s out, or upgrade the gateway; docs/operations.md, Upgrades and version skew)", err, flag, flag)
	}
	return fmt.Errorf("%w\n(the gateway runs an older Corral than this corral: upgrade the gateway, or use a corral of its version; docs/operations.md, Upgrades and version skew)", err)
}

// summarized reports whether a list tool's result has a summary: gateways older than paging
// send every row and no summary.
func summarized(res *mcpgo.CallToolResult) bool {
	var s struct {
		Summary *json.RawMessage `json:"summary"`
	}
	return structured(res, &s) == nil && s.Summary != nil
}

// warnOlderGateway tells on stderr that the gateway sent no summary, so the counts are of the
// rows it sent; and that it may have ignored the filters given.
func warnOlderGateway(what string, args map[string]any) {
	var given []string
	for _, k := range slices.Sorted(maps.Keys(args)) {
		if flag, ok := argFlags[k]; ok {
			given = append(given, flag)
		}
	}
	msg := fmt.Sprintf("corral %s: the gateway runs an older Corral than this corral (it sent no summary): the count is of the rows it sent", what)
	if len(given) > 0 {
		msg += ", and it may have ignored " + strings.Join(given, ", ")
	}
	fmt.Fprintln(os.Stderr, msg+"; upgrade the gateway (docs/operations.md, Upgrades and version skew)")
}

// devicesSummary counts devices as the gateway's summary does, for a gateway that sends none.
func devicesSummary(devs []mcp.DeviceSummary) mcp.ListSummary {
	s := mcp.ListSummary{Total: len(devs), ByPlatform: map[string]int{}, ByState: map[string]int{}, ByNode: map[string]int{}}
	for _, d := range devs {
		s.ByPlatform[cmp.Or(d.Platform, "unknown")]++
		s.ByState[cmp.Or(d.State, "unknown")]++
		s.ByNode[d.Node]++
	}
	return s
}
