package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/corral-farm/corral/broker"
)

// LeasesResult is list_leases' structured result: a page of leases by serial, with a summary
// of all pages.
type LeasesResult struct {
	Leases     []LeaseInfo `json:"leases" jsonschema:"This page: explicit leases on the devices the caller may use, without handles"`
	Summary    ListSummary `json:"summary" jsonschema:"Counts of all matching, by device"`
	NextCursor string      `json:"next_cursor,omitempty" jsonschema:"Cursor of the next page, if any"`
	Note       string      `json:"note,omitempty"`
	Groups     []GroupInfo `json:"groups,omitempty" jsonschema:"The groups of these leases"`
	// Unanswered names the nodes that did not answer (a stopped node's, a cut-off edge site's)
	// and the sites the hub cannot reach: the list lacks their leases, which they may still hold.
	Unanswered string `json:"unanswered,omitempty"`
}

// listLeasesArgs are list_leases' filters (of the leased device, and its holder) and page.
// Serial is the device HttpRunner's clients send with every call (unlisted: serialFilter):
// only its lease is listed.
type listLeasesArgs struct {
	deviceFilter
	Holder string `json:"holder,omitempty"`
	Serial string `json:"serial,omitempty"`
	pageArgs
}

func (a *listLeasesArgs) Check() error {
	var err error
	if len(a.Holder) > maxSerialLen {
		err = fmt.Errorf("holder is %d bytes long; at most %d", len(a.Holder), maxSerialLen)
	}
	return errors.Join(a.deviceFilter.Check(), err, a.pageArgs.Check())
}

// matches reports whether a lease on device d (known: in the registry) passes the filters.
func (a *listLeasesArgs) matches(l broker.Lease, d broker.DeviceEntry, known bool) bool {
	if a.Holder != "" && a.Holder != l.Holder.Principal && a.Holder != l.Holder.Name() && a.Holder != l.Holder.String() {
		return false
	}
	if a.Serial != "" && a.Serial != l.Serial {
		return false
	}
	if !known {
		return a.Platform == "" && a.State == "" && a.Model == "" && len(a.Tags) == 0 && (a.Node == "" || a.Node == l.Node)
	}
	return a.deviceFilter.matches(d)
}

// filters are list_leases' own filters, for the print a cursor carries: serial only when
// given, so that the cursors of a list without it stay what they were.
func (a *listLeasesArgs) filters() []string {
	if a.Serial == "" {
		return []string{a.Holder}
	}
	return []string{a.Holder, "serial " + a.Serial}
}

func toolListLeases() toolDef {
	opts := append([]mcpgo.ToolOption{
		mcpgo.WithDescription("List the leases of the farm: device, holder, epoch, expiry, hard maximum and queue length (handles are secret to their holders), " +
			"of the devices matching the filters, a page at a time by serial, with counts of all."),
		readOnly(), mcpgo.WithOutputSchema[LeasesResult](),
	}, deviceFilterParams()...)
	opts = append(opts, mcpgo.WithString("holder", mcpgo.Description(`A principal, or "principal (client)"`)))
	tool := mcpgo.NewTool(listLeasesTool, append(opts, pageParams()...)...)
	return toolDef{tool: tool, serialFilter: true, handler: func(g *Gateway) mcpserver.ToolHandlerFunc {
		return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			var a listLeasesArgs
			if err := decodeArgs(tool, req, &a); err != nil {
				return g.refuseErr(ctx, err), nil
			}
			if err := g.checkPlatform(a.Platform); err != nil {
				return g.refuseErr(ctx, err), nil
			}
			if a.Serial != "" { // as a device tool's, or a device of the caller's own lease (release_own.go)
				if errRes := g.leasesSerialRefused(ctx, a.Platform, a.Serial); errRes != nil {
					return errRes, nil
				}
			}
			end := pageEnd{kind: listLeases, filters: a.print(a.filters()...), noun: "leases", narrow: "platform, state, tags, model, node or holder"}
			after, err := a.after(end.kind, end.filters)
			if err != nil {
				return g.refuseErr(ctx, err), nil
			}
			caller := holderFrom(ctx)
			heard := nodesHeard(g.farm)
			leases, err := g.farm.Leases(ctx)
			var partial *broker.PartialError
			if err != nil && !errors.As(err, &partial) {
				setOutcome(ctx, broker.OutcomeLost)
				return errorResult(fmt.Sprintf("list_leases: %v", err)), nil
			}
			down := sitesMissing(g.farm, g.farm.SitesDown(), leases, heard, partial) // of all leases, before the filters
			// Leases and devices both by serial: each lease finds its device in one pass.
			slices.SortFunc(leases, func(x, y broker.Lease) int { return cmp.Compare(x.Serial, y.Serial) })
			devs := g.farm.Devices() // sorted by serial
			sum := newSummary()
			leases = slices.DeleteFunc(leases, func(l broker.Lease) bool {
				for len(devs) > 0 && devs[0].Serial < l.Serial {
					devs = devs[1:]
				}
				var d broker.DeviceEntry
				known := len(devs) > 0 && devs[0].Serial == l.Serial
				if known {
					d = devs[0]
				}
				mine := g.isCaller(ctx, l.Holder.Principal) // shown whatever its device's tags now (release_own.go)
				if !a.matches(l, d, known) || (!mine && ((known && !g.mayUse(ctx, d)) || (!known && !g.mayUseSerial(ctx, l.Serial)))) {
					return true // filtered out, or another principal's device
				}
				sum.add(d.Platform, d.State, l.Node)
				return false
			})
			sum.bound()
			page, more := pageAfter(leases, func(l broker.Lease) string { return l.Serial }, after, a.Limit)
			unanswered := unansweredOf(partial, down)
			b, err := fitPage(len(page), func(n int) any {
				out := LeasesResult{Leases: make([]LeaseInfo, 0, n), Summary: sum}
				out.Unanswered = unanswered
				for _, l := range page[:n] {
					info := leaseInfo(l.Public())
					// As a call on the device would say "You hold it" (failureText).
					info.Yours = l.Holder.Is(caller)
					out.Leases = append(out.Leases, info)
				}
				out.Groups = g.markGroups(ctx, leases, out.Leases)
				if n > 0 {
					out.NextCursor, out.Note = end.tail(page[n-1].Serial, n, len(page), sum.Total, more)
				}
				return out
			})
			if err != nil {
				return errorResult(fmt.Sprintf("list_leases: the answer cannot be encoded: %v", err)), nil
			}
			return structuredJSON(ctx, b), nil
		}
	}}
}

// unansweredOf says whose leases the list lacks: the nodes that did not answer (partial, or
// nil) and the edge sites whose link is down, whose nodes were not asked; "" when none.
func unansweredOf(partial *broker.PartialError, sitesDown []string) string {
	var parts []string
	if partial != nil {
		parts = append(parts, partial.Error())
	}
	switch len(sitesDown) {
	case 0:
	case 1:
		parts = append(parts, "site "+sitesDown[0]+" is unreachable from the hub (its link is down): the leases held there are not listed; "+
			"they stay held at the site (corral_site_up says when the link is back)")
	default:
		parts = append(parts, "sites "+strings.Join(sitesDown, ", ")+" are unreachable from the hub (their links are down): the leases held there are not listed; "+
			"they stay held at the sites (corral_site_up says when a link is back)")
	}
	return strings.Join(parts, "; ")
}
