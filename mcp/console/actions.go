package console

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// The device page's actions: POST /console/devices/{serial}/actions/{action}, with the page's
// CSRF token and a JSON body (tap: {"x","y"}; swipe: {"from_x","from_y","to_x","to_y",
// "duration"}; type: {"text"}; the others: none). Each calls the front door's tool through
// Actions, as an MCP tools/call would, with the lease this console session holds of the device
// (held.go) when it holds one: on a free device a tap without it runs under a one-call lease,
// on a device someone else holds it is refused as busy, naming the holder.

// action is one of the console's actions.
type action struct {
	// tool is the front door's tool it calls; "" for force_release, which no tool does.
	tool string
	// obeys, for an action no tool does (an operator's), is the tool whose policy rule it
	// obeys as well: force_release aborts the device's running task, as abort_task does.
	obeys string
	// args takes the tool's own arguments from the request's body; nil: it takes none.
	args func(b actionBody) (map[string]any, error)
	// lease: pass the session's lease of the device.
	lease bool
	// platform: only on devices of this platform ("" for any).
	platform string
}

var actions = map[string]action{
	"acquire":       {tool: "acquire_device"},
	"release":       {tool: "release_device"},
	"tap":           {tool: "tap_xy", lease: true, args: tapArgs},
	"swipe":         {tool: "swipe_coordinate", lease: true, args: swipeArgs},
	"type":          {tool: "input", lease: true, args: typeArgs},
	"home":          {tool: "home", lease: true},
	"back":          {tool: "back", lease: true},
	"abort":         {tool: "abort_task"},
	"force_release": {obeys: ForceReleaseObeys},
	// stop halts an arm rig at once (a safety stop: one click, no confirmation). Recovering it
	// is no console action: a person must look at the rig first (arm_recover).
	"stop": {tool: "emergency_stop", platform: device.PlatformArm},
}

// ForceReleaseObeys is the tool whose policy rule force release obeys besides operator: it
// aborts the device's running task, so a principal whose tools leave out abort_task may not.
const ForceReleaseObeys = "abort_task"

// needs is the tool whose rule and serving the action needs.
func (a action) needs() string { return cmp.Or(a.tool, a.obeys) }

// actionNames lists the actions, sorted.
func actionNames() []string {
	names := make([]string, 0, len(actions))
	for n := range actions {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// actionAnswer is an action's answer to the page.
type actionAnswer struct {
	OK      bool   `json:"ok"`
	Message string `json:"message"`
	// Held, after acquire, release, abort and force_release: this session holds the device's
	// lease now.
	Held *bool `json:"held,omitempty"`
	// Busy: refused because another has the device (busy.go); the page words it.
	Busy *busyView `json:"busy,omitempty"`
	// Lease, after an acquire: until when this console holds it, for the page to say in the
	// browser's time zone (Message says it in UTC).
	Lease *leaseTimes `json:"lease,omitempty"`
}

// leaseTimes are a lease's idle expiry and hard end.
type leaseTimes struct {
	Until time.Time `json:"until"`
	Max   time.Time `json:"max"`
}

// act serves an action.
func (c *Console) act(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("action")
	spec, known := actions[name]
	if !known {
		refuseAction(w, http.StatusNotFound, fmt.Sprintf("no console action %q; the actions are %s", name, strings.Join(actionNames(), ", ")))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxActionBody)
	if reason, msg := c.checkPost(r); reason != "" {
		c.cfg.Metrics.action(name, reason)
		c.log.Info("console: refused an action not from a console page", "reason", reason, "action", name, "remote", r.RemoteAddr)
		refuseAction(w, http.StatusForbidden, msg)
		return
	}
	v, reason := c.cookieViewer(r) // the cookie only: actions are for the console's pages
	if reason != "" {
		c.refused(r, reason)
		refuseAction(w, http.StatusUnauthorized, "unauthorized: log in to the console first (open / and give your token); scripts call the same tools on /mcp")
		return
	}
	r = c.withViewer(r, v)
	d, ok := c.visible(r.Context(), r.PathValue("serial"))
	switch {
	case !ok:
		refuseAction(w, http.StatusNotFound, "no such device: it is not in the registry, or your token may not use it")
		return
	case c.cfg.Actions == nil:
		refuseAction(w, http.StatusNotImplemented, "this console is read-only: its gateway takes no actions")
		return
	case !c.cfg.Actions.Serves(spec.needs()):
		refuseAction(w, http.StatusNotImplemented, fmt.Sprintf("this gateway does not serve %s, which %s needs (its --tools leave it out)", spec.needs(), name))
		return
	}
	args, err := actionArgs(r, name, spec)
	if err != nil {
		c.cfg.Metrics.action(name, outcomeBadRequest)
		refuseAction(w, http.StatusBadRequest, "bad "+name+": "+err.Error())
		return
	}
	handle := c.heldHandle(r, v, d.Serial)
	a := c.carryOut(w, r, v, d.Serial, name, args, handle)
	out := actionAnswer{OK: a.OK, Message: a.Message, Lease: a.lease}
	if !a.OK && a.Busy {
		if b := c.busyOf(r.Context(), d.Serial); b.known() {
			out.Busy, out.Message = &b, busyMessage(d.Serial, b)
		} // else the tool's own words, which name the reason, not "someone is using it"
	}
	switch name {
	case "acquire", "release", "abort", "force_release": // they change the lease: say who holds it now
		c.leases.expire()
		held := name == "acquire" && a.OK || name != "acquire" && c.holds(r, d.Serial)
		if !held && handle != "" {
			dropHeld(w, r, d.Serial) // released, revoked or lapsed: the handle is of no use
		}
		out.Held = &held
	}
	outcome := outcomeOf(a)
	c.cfg.Metrics.action(name, outcome)
	c.log.Debug("console action", "action", name, "serial", d.Serial, "viewer", v.Name, "outcome", outcome)
	status := http.StatusOK
	switch outcome {
	case outcomeDenied:
		status = http.StatusForbidden
	case outcomeFailed:
		status = http.StatusConflict
	}
	writeAnswer(w, status, out)
}

// actionArgs are the tool's own arguments an action's body gives.
func actionArgs(r *http.Request, name string, spec action) (map[string]any, error) {
	if spec.args == nil && r.ContentLength == 0 {
		return map[string]any{}, nil
	}
	b, err := decodeActionBody(r.Body)
	switch {
	case err != nil:
		return nil, err
	case spec.args != nil:
		return spec.args(b)
	case len(b.given()) > 0:
		return nil, fmt.Errorf("%s takes no arguments", name)
	}
	return map[string]any{}, nil
}

// carryOut has the front door do the action, with the lease this session holds of serial
// (handle, "" for none).
func (c *Console) carryOut(w http.ResponseWriter, r *http.Request, v Viewer, serial, name string, args map[string]any, handle string) Answer {
	tool := actions[name].tool
	switch name {
	case "force_release":
		return c.cfg.Actions.ForceRelease(r.Context(), v, serial)
	case "acquire":
		if c.holds(r, serial) {
			return Answer{OK: true, Message: fmt.Sprintf("This console already holds %s.", serial)}
		}
		if len(c.heldCurrent(w, r, v)) >= maxHeld {
			return Answer{Message: fmt.Sprintf("this console session holds %d leases already; release some first (or log out, which releases them)", maxHeld)}
		}
		return c.acquired(w, r, v, serial, c.cfg.Actions.Call(r.Context(), v, tool, map[string]any{"serial": serial}))
	case "release":
		if handle == "" {
			return Answer{Message: fmt.Sprintf("this console session holds no lease of %s (it was never acquired here, or already released); nothing to release", serial)}
		}
		return c.cfg.Actions.Call(r.Context(), v, tool, map[string]any{"serial": serial, "lease": handle})
	}
	args["serial"] = serial
	if actions[name].lease && handle != "" {
		args["lease"] = handle
	}
	return c.cfg.Actions.Call(r.Context(), v, tool, args)
}

// acquired keeps the handle of a lease acquire_device answered in the session's cookie, and
// tells the page what it got without the handle, which no script of the page may see.
func (c *Console) acquired(w http.ResponseWriter, r *http.Request, v Viewer, serial string, a Answer) Answer {
	if !a.OK {
		return a
	}
	var res struct {
		Lease struct {
			Handle    string    `json:"handle"`
			Serial    string    `json:"serial"`
			ExpiresAt time.Time `json:"expires_at"`
			MaxUntil  time.Time `json:"max_until"`
		} `json:"lease"`
	}
	if err := json.Unmarshal(a.Data, &res); err != nil || res.Lease.Handle == "" || res.Lease.Serial != serial {
		return Answer{Message: fmt.Sprintf("acquire_device answered without a lease of %s (%v); release_device or wait for it to lapse", serial, err)}
	}
	c.keepHeld(w, r, v, heldLease{Principal: v.Name, Serial: serial, Handle: res.Lease.Handle})
	utc := func(t time.Time) string { return t.UTC().Format(time.TimeOnly) + " UTC" }
	return Answer{OK: true, Message: fmt.Sprintf("This console holds %s until %s unless an action renews it (at the latest %s). Release it when done.",
		serial, utc(res.Lease.ExpiresAt), utc(res.Lease.MaxUntil)),
		lease: &leaseTimes{Until: res.Lease.ExpiresAt, Max: res.Lease.MaxUntil}}
}

// outcomeOf is an answer's outcome label.
func outcomeOf(a Answer) string {
	switch {
	case a.OK:
		return outcomeSucceeded
	case a.Denied:
		return outcomeDenied
	}
	return outcomeFailed
}

// refuseAction answers an action that was not carried out.
func refuseAction(w http.ResponseWriter, status int, msg string) {
	writeAnswer(w, status, actionAnswer{Message: msg})
}

func writeAnswer(w http.ResponseWriter, status int, a actionAnswer) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(a)
}

// controls are the actions a viewer may take, for the device page.
type controls struct {
	Can map[string]bool
}

// Any reports whether there is an action to show.
func (c controls) Any() bool { return len(c.Can) > 0 }

// List is the actions, space-separated, for the page's script.
func (c controls) List() string {
	var names []string
	for _, n := range actionNames() {
		if c.Can[n] {
			names = append(names, n)
		}
	}
	return strings.Join(names, " ")
}

// controls returns the actions v may take on a device of platform: those whose tools the
// policy lets it call, the gateway serves and the platform's drivers can run; force_release
// for operators whose tools include abort_task. The front door decides again on each.
func (c *Console) controls(v Viewer, platform string) controls {
	if c.cfg.Actions == nil {
		return controls{}
	}
	can := map[string]bool{}
	for name, a := range actions {
		if a.platform != "" && a.platform != platform {
			continue
		}
		// an operator's action no tool does runs on any platform: it obeys its tool's rule only
		mayRun := a.tool == "" && v.Operator || a.tool != "" && c.cfg.Actions.Supports(platform, a.tool)
		if mayRun && v.mayCall(a.needs()) && c.cfg.Actions.Serves(a.needs()) {
			can[name] = true
		}
	}
	return controls{Can: can}
}
