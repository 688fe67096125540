package console

import (
	"context"
	"strings"

	"github.com/corral-farm/corral/broker"
)

// What the console shows a viewer, it shows only as the front door would: each view needs a
// tool an MCP client calls to see the same, besides the device's tag rule (Viewer.MayUse). The
// tool must be one the viewer's token may call and one the gateway serves: a principal with tools
// [home] drives a device's Home button, but sees no live screen (that is screenshot), no device
// list (list_available_devices) and no task timeline (get_task_result); a gateway started with
// --tools phone-agent, which leaves screenshot out, shows no one a live screen. The page says
// what is hidden and why.

// The tools of the views.
const (
	toolScreen = "screenshot"             // live screens
	toolList   = "list_available_devices" // the grid
	toolStatus = "get_device_status"      // a device's facts (or toolList, which lists them too)
	toolTasks  = "get_task_result"        // a device's task timeline and its marked screens
	toolLeases = "list_leases"            // lease expiries and queues
)

// view is what one part of the console needs: any of its tools; and what the page says in
// place of it, after why (Viewer.hidden).
type view struct {
	tools []string
	// shows ends the sentence that says why the viewer sees none of it ("so the console …").
	shows string
}

var (
	viewScreen   = view{[]string{toolScreen}, "shows no live screens."}
	viewList     = view{[]string{toolList}, "lists no devices; open a device's page by its address, /devices/SERIAL."}
	viewStatus   = view{[]string{toolStatus, toolList}, "shows none of this device's facts."}
	viewTimeline = view{[]string{toolTasks}, "shows no task timeline."}
	viewLeases   = view{[]string{toolLeases}, "shows no lease times or queue lengths."}
)

func (v Viewer) may(w view) bool {
	for _, t := range w.tools {
		if v.mayCall(t) {
			return true
		}
	}
	return false
}

// hidden says why v sees none of w: the gateway serves none of its tools (its --tools leave
// them out), or else v's token may call none of them.
func (v Viewer) hidden(w view) string {
	tools, them := strings.Join(w.tools, " or "), "it"
	for _, t := range w.tools {
		if v.serves(t) {
			return "Your token may not call " + tools + ", so the console " + w.shows
		}
	}
	if len(w.tools) > 1 {
		them = "them"
	}
	return "This gateway does not serve " + tools + " (its --tools leave " + them + " out), so the console " + w.shows
}

func (v Viewer) mayScreen() bool { return v.may(viewScreen) }
func (v Viewer) mayList() bool   { return v.may(viewList) }
func (v Viewer) mayStatus() bool { return v.may(viewStatus) }
func (v Viewer) mayTasks() bool  { return v.may(viewTimeline) }
func (v Viewer) mayLeases() bool { return v.may(viewLeases) }

// HiddenScreen says why v sees no live screens (templates ask it).
func (v Viewer) HiddenScreen() string { return v.hidden(viewScreen) }

// leasesFor are the nodes' leases, by serial, if v may list them (not nil, even when none
// could be fetched); nil otherwise: viewOf then shows no lease data, queue lengths included.
func (c *Console) leasesFor(ctx context.Context, v Viewer) (map[string]broker.Lease, error) {
	if !v.mayLeases() {
		return nil, nil
	}
	leases, err := c.leases.get(ctx)
	if leases == nil {
		leases = map[string]broker.Lease{}
	}
	return leases, err
}
