package console

import (
	"context"

	"github.com/corral-farm/corral/broker"
)

// What the console shows a viewer, it shows only as the front door would: each view needs the
// tool an MCP client calls to see the same, besides the device's tag rule (Viewer.MayUse). A
// principal with tools [home] drives a device's Home button, but sees no live screen (that is
// screenshot), no device list (list_available_devices) and no task timeline (get_task_result);
// the page says what is hidden and why.

// The tools each view needs.
const (
	toolScreen = "screenshot"             // live screens
	toolList   = "list_available_devices" // the grid
	toolStatus = "get_device_status"      // a device's facts (or toolList, which lists them too)
	toolTasks  = "get_task_result"        // a device's task timeline and its marked screens
	toolLeases = "list_leases"            // lease expiries and queues
)

// What the page says in place of what the viewer's token may not see.
const (
	hiddenScreen   = "Your token may not call screenshot, so the console shows it no live screens."
	hiddenList     = "Your token may not call list_available_devices, so the console lists no devices for it; open a device's page by its address, /devices/SERIAL."
	hiddenStatus   = "Your token may not call get_device_status or list_available_devices, so the console shows it none of this device's facts."
	hiddenTimeline = "Your token may not call get_task_result, so the console shows it no task timeline."
)

func (v Viewer) mayScreen() bool { return v.mayCall(toolScreen) }
func (v Viewer) mayList() bool   { return v.mayCall(toolList) }
func (v Viewer) mayStatus() bool { return v.mayCall(toolStatus) || v.mayCall(toolList) }
func (v Viewer) mayTasks() bool  { return v.mayCall(toolTasks) }
func (v Viewer) mayLeases() bool { return v.mayCall(toolLeases) }

// leasesFor are the nodes' leases, by serial, if v may list them; none otherwise.
func (c *Console) leasesFor(ctx context.Context, v Viewer) (map[string]broker.Lease, error) {
	if !v.mayLeases() {
		return nil, nil
	}
	return c.leases.get(ctx)
}
