package console

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/corral-farm/corral/broker"
)

// deviceView is one device as the console shows it: its registry entry, and its explicit
// lease's expiry and queue from its node (the registry carries the holder, not those).
type deviceView struct {
	Serial   string   `json:"serial"`
	Platform string   `json:"platform"`
	Model    string   `json:"model,omitempty"`
	Brand    string   `json:"brand,omitempty"`
	Release  string   `json:"release,omitempty"`
	Node     string   `json:"node"`
	State    string   `json:"state"`
	Reason   string   `json:"reason,omitempty"`
	Draining bool     `json:"draining,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	Holder   string   `json:"holder,omitempty"`
	// DrainingSince and DrainingBy: when the node's drain began and who asked for it (an
	// operator's name); absent from an older node's entry.
	DrainingSince time.Time `json:"draining_since,omitzero"`
	DrainingBy    string    `json:"draining_by,omitempty"`
	// Halted: an arm rig held still until a person recovers it (emergency_stop, or its
	// controller in alarm); Reason says which. Its gestures are refused meanwhile.
	Halted bool `json:"halted,omitempty"`
	// Stopped: who stopped a halted rig with emergency_stop, and when (halt.go).
	Stopped *stopView `json:"stopped,omitempty"`
	// HeldSince, LeaseExpires and LeaseMax are the explicit lease's start, idle expiry and hard
	// end; QueueLen the tasks and lease requests waiting for the device, as the registry entry
	// shows them (an older node's, without them: as its lease shows them, while it is leased).
	// Without list_leases the viewer sees none of them (reads.go): QueueLen is then nil.
	HeldSince    time.Time  `json:"held_since,omitzero"`
	LeaseExpires time.Time  `json:"lease_expires,omitzero"`
	LeaseMax     time.Time  `json:"lease_max,omitzero"`
	QueueLen     *int       `json:"queue_len,omitempty"`
	Task         *taskBrief `json:"task,omitempty"`
	Updated      time.Time  `json:"updated,omitzero"`
}

// taskBrief is the task a device runs now.
type taskBrief struct {
	ID       string    `json:"id,omitempty"`
	Tool     string    `json:"tool"`
	Holder   string    `json:"holder,omitempty"`
	Started  time.Time `json:"started,omitzero"`
	Deadline time.Time `json:"deadline,omitzero"`
}

// viewOf is d as the console shows it; leases nil: the viewer may not read them (no lease
// times, no queue length: list_leases is what tells them on /mcp).
func viewOf(d broker.DeviceEntry, leases map[string]broker.Lease) deviceView {
	v := deviceView{Serial: d.Serial, Platform: d.Platform, Model: d.Model, Brand: d.Brand, Release: d.Release, Node: d.Node,
		State: d.State, Reason: d.Reason, Draining: d.Draining, Tags: d.Tags, Holder: d.Holder, Halted: haltedRig(d), Updated: d.Updated}
	v.Stopped = stoppedOf(d)
	queued := d.Queued
	if l, ok := leases[d.Serial]; ok && l.Node == d.Node && l.Epoch == d.Epoch {
		v.HeldSince, v.LeaseExpires, v.LeaseMax = l.AcquiredAt, l.ExpiresAt, l.MaxUntil
		if d.Queued == 0 { // an older node's entry has no queue; the leases are fetched every second
			queued = l.QueueLen
		}
	}
	if leases != nil {
		v.QueueLen = &queued
	}
	if d.Draining {
		v.DrainingSince, v.DrainingBy = d.DrainingSince, d.DrainingBy
	}
	if d.State == broker.StateOffline {
		// A lost node's last entry, kept for what get_task_result tells of its tasks: nothing
		// runs or waits on an offline device, whoever was there has been answered.
		if v.QueueLen != nil {
			v.QueueLen = new(int)
		}
		v.Task = nil
		return v
	}
	if t := d.Task; t != nil {
		v.Task = &taskBrief{ID: t.ID, Tool: t.Tool, Started: t.Started, Deadline: t.Deadline}
		if t.Holder != nil {
			v.Task.Holder = t.Holder.String()
		}
	}
	return v
}

// DrainText says since when and by whom the device's node drains, as the page's script does
// (console.js drainText) in the browser's zone; "" when it does not drain.
func (v deviceView) DrainText() string {
	if !v.Draining {
		return ""
	}
	s := "Draining"
	if t := clock(v.DrainingSince); t != "" {
		s += " since " + t
	}
	if v.DrainingBy != "" {
		s += " by " + v.DrainingBy
	}
	return s
}

// sameLeaseViews says whether two lease maps show the same in the grid: the fields viewOf
// reads, of the same serials. The leases are fetched every second while someone looks; a
// fetch that brings nothing new must not make every long poll build the grid again.
func sameLeaseViews(a, b map[string]broker.Lease) bool {
	return maps.EqualFunc(a, b, func(x, y broker.Lease) bool {
		return x.Node == y.Node && x.Epoch == y.Epoch && x.AcquiredAt.Equal(y.AcquiredAt) && x.ExpiresAt.Equal(y.ExpiresAt) &&
			x.MaxUntil.Equal(y.MaxUntil) && x.QueueLen == y.QueueLen
	})
}

// leaseMap asks every node for its explicit leases, by serial.
func leaseMap(ctx context.Context, farm Farm) (map[string]broker.Lease, error) {
	ls, err := farm.Leases(ctx)
	out := make(map[string]broker.Lease, len(ls))
	for _, l := range ls {
		out[l.Serial] = l
	}
	if err != nil && len(out) > 0 {
		err = nil // some nodes answered: show what they said
	}
	return out, err
}

// filter chooses devices by the grid's query: platform, tag, node and state ("" for any).
type filter struct {
	Platform string `json:"platform,omitempty"`
	Tag      string `json:"tag,omitempty"`
	Node     string `json:"node,omitempty"`
	State    string `json:"state,omitempty"`
}

func filterOf(q url.Values) filter {
	return filter{Platform: q.Get("platform"), Tag: q.Get("tag"), Node: q.Get("node"), State: q.Get("state")}
}

func (f filter) match(d deviceView) bool {
	return (f.Platform == "" || d.Platform == f.Platform) && (f.Node == "" || d.Node == f.Node) &&
		(f.State == "" || d.State == f.State) && (f.Tag == "" || slices.Contains(d.Tags, f.Tag))
}

// gridData is the grid: the devices the filter chose among those the viewer may see, and the
// values each filter can take (from every device the viewer may see).
type gridData struct {
	Viewer    string       `json:"viewer"`
	Filter    filter       `json:"filter"`
	Devices   []deviceView `json:"devices"`
	Total     int          `json:"total"` // devices the viewer may see
	Platforms []string     `json:"platforms"`
	Nodes     []string     `json:"nodes"`
	Tags      []string     `json:"tags"`
	States    []string     `json:"states"`
	// LeasesError says why lease expiries and queues are missing, if they are.
	LeasesError string `json:"leases_error,omitempty"`
	// LeasesHidden says why the viewer sees no lease times and queues: its token may not call
	// list_leases (reads.go).
	LeasesHidden string `json:"leases_hidden,omitempty"`
	// Hidden says why the viewer is shown no devices: its token may not list them (reads.go).
	Hidden string `json:"hidden,omitempty"`
}

// grid builds the grid for the viewer in ctx.
func (c *Console) grid(ctx context.Context, f filter) gridData {
	c.cfg.Metrics.gridBuilt()
	v := viewerFrom(ctx)
	g := gridData{Viewer: v.Name, Filter: f, Devices: []deviceView{}, States: broker.States}
	if !v.mayList() {
		g.Hidden, g.Platforms, g.Nodes, g.Tags = v.hidden(viewList), []string{}, []string{}, []string{}
		return g
	}
	leases, err := c.leasesFor(ctx, v)
	if err != nil {
		g.LeasesError = "lease expiries and queues are unknown: " + err.Error()
	}
	if !v.mayLeases() {
		g.LeasesHidden = v.hidden(viewLeases)
	}
	var platforms, nodes, tags []string
	devices := c.cfg.Farm.Devices()
	// Sized at once: grown by appends, it was most of the cost of a grid of 10,000 devices.
	g.Devices = make([]deviceView, 0, len(devices))
	for _, d := range devices {
		if !v.mayUse(d) {
			continue
		}
		g.Total++
		platforms, nodes, tags = append(platforms, d.Platform), append(nodes, d.Node), append(tags, d.Tags...)
		if dv := viewOf(d, leases); f.match(dv) {
			g.Devices = append(g.Devices, dv)
		}
	}
	g.Platforms, g.Nodes, g.Tags = sorted(platforms), sorted(nodes), sorted(tags)
	return g
}

// visible returns the device the viewer in ctx may see; false for one it may not or that
// does not exist (the console does not tell them apart).
func (c *Console) visible(ctx context.Context, serial string) (broker.DeviceEntry, bool) {
	d, ok := c.cfg.Farm.Device(serial)
	if !ok || !viewerFrom(ctx).mayUse(d) {
		return broker.DeviceEntry{}, false
	}
	return d, true
}

// Long polls of the grid: a request that names the grid it has (If-None-Match) and asks to
// wait is answered when the grid differs, or with 304 after longPoll. A change shows at once,
// with no poll interval on top of the registry's own delay.
const (
	longPoll = 10 * time.Second
	// longPollCheck is how often a long poll looks whether the registry or the leases moved
	// (a look compares two versions); it builds the grid again only when one did.
	longPollCheck = 50 * time.Millisecond
)

// gridInputs identifies what a grid is built from: the registry's and the leases' versions.
type gridInputs struct{ registry, leases uint64 }

// inputs returns the grid's inputs as they are now; false when the Farm cannot tell.
func (c *Console) inputs(ctx context.Context) (gridInputs, bool) {
	rv := c.cfg.Registry
	if rv == nil {
		return gridInputs{}, false
	}
	leases, _ := c.leases.version(ctx) // a failed fetch is a version too: the grid says why
	return gridInputs{registry: rv.RegistryVersion(), leases: leases}, true
}

// devicesJSON serves the grid as JSON: /console/api/devices?platform=&tag=&node=&state=, with
// an ETag; with If-None-Match and ?wait=1, a long poll.
func (c *Console) devicesJSON(w http.ResponseWriter, r *http.Request) {
	f := filterOf(r.URL.Query())
	have := r.Header.Get("If-None-Match")
	wait := time.Duration(0)
	if r.URL.Query().Get("wait") != "" {
		wait = c.longPoll
	}
	body, etag, err := c.gridUnlike(r.Context(), f, have, wait)
	if r.Context().Err() != nil {
		return // the browser left
	}
	if err != nil {
		http.Error(w, "encode the grid: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", "no-cache")
	if have == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "application/json")
	_, _ = w.Write(append(body, '\n'))
}

// gridUnlike returns the grid, once its ETag is not have or wait has passed (or ctx ended).
// While it waits it looks every longPollCheck whether the grid's inputs moved since the grid
// it has was built, and builds it again only then: a still farm costs a look, not a grid.
func (c *Console) gridUnlike(ctx context.Context, f filter, have string, wait time.Duration) ([]byte, string, error) {
	var built gridInputs
	versioned := false
	if wait > 0 { // before the build: a change during it shows at the next look
		built, versioned = c.inputs(ctx)
	}
	body, etag, err := c.gridBody(ctx, f)
	if err != nil || etag != have || wait <= 0 {
		return body, etag, err
	}
	end := time.NewTimer(wait)
	defer end.Stop()
	check := time.NewTicker(longPollCheck)
	defer check.Stop()
	for err == nil && etag == have {
		select {
		case <-ctx.Done():
			return body, etag, ctx.Err()
		case <-end.C:
			return body, etag, nil
		case <-check.C:
			now, _ := c.inputs(ctx)
			if versioned && now == built {
				continue
			}
			built = now
			body, etag, err = c.gridBody(ctx, f)
		}
	}
	return body, etag, err
}

// gridBody is the grid's JSON and its ETag.
func (c *Console) gridBody(ctx context.Context, f filter) ([]byte, string, error) {
	body, err := json.Marshal(c.grid(ctx, f))
	sum := sha256.Sum256(body)
	return body, `"` + hex.EncodeToString(sum[:12]) + `"`, err
}

// deviceData is one device's page: its view and its task timeline.
type deviceData struct {
	Device      deviceView `json:"device"`
	Tasks       []taskView `json:"tasks"`
	TasksError  string     `json:"tasks_error,omitempty"`
	LeasesError string     `json:"leases_error,omitempty"`
	// LeasesHidden: as gridData's.
	LeasesHidden string `json:"leases_hidden,omitempty"`
	// Paused says why the page offers no gestures now (a halted rig, an offline device; halt.go).
	Paused string `json:"paused,omitempty"`
	// Held: this console session holds the device's lease (held.go).
	Held bool `json:"held"`
	// StatusHidden says why Device holds only the serial: the viewer's token may not read the
	// device's status (reads.go).
	StatusHidden string `json:"status_hidden,omitempty"`
}

// TimelineData is the timeline template's data.
func (d deviceData) TimelineData() timelineData {
	return timelineData{Tasks: d.Tasks, Error: d.TasksError}
}

// device builds a device's page; with its timeline if tasks.
func (c *Console) device(ctx context.Context, d broker.DeviceEntry, tasks bool) deviceData {
	v := viewerFrom(ctx)
	out := deviceData{Device: deviceView{Serial: d.Serial}, Tasks: []taskView{}, StatusHidden: v.hidden(viewStatus)}
	if v.mayStatus() {
		leases, err := c.leasesFor(ctx, v)
		out.Device, out.StatusHidden = viewOf(d, leases), ""
		if err != nil {
			out.LeasesError = "lease expiry and queue are unknown: " + err.Error()
		}
		if !v.mayLeases() {
			out.LeasesHidden = v.hidden(viewLeases)
		}
		out.Paused = pausedText(out.Device)
	}
	switch {
	case !v.mayTasks():
		out.TasksError = v.hidden(viewTimeline)
	case tasks:
		out.Tasks, out.TasksError = c.timeline(ctx, d.Serial)
	}
	return out
}

// deviceJSON serves one device and its timeline: /console/api/devices/{serial} (?tasks=0:
// without the timeline, which the device page fetches less often).
func (c *Console) deviceJSON(w http.ResponseWriter, r *http.Request) {
	d, ok := c.visible(r.Context(), r.PathValue("serial"))
	if !ok {
		http.Error(w, "no such device: it is not in the registry, or your token may not use it", http.StatusNotFound)
		return
	}
	data := c.device(r.Context(), d, r.URL.Query().Get("tasks") != "0")
	data.Held = c.holds(r, data.Device.Serial)
	writeJSON(w, data)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(v)
}

// sorted returns the distinct non-empty strings of s, sorted.
func sorted(s []string) []string {
	s = slices.DeleteFunc(s, func(x string) bool { return strings.TrimSpace(x) == "" })
	slices.Sort(s)
	if len(s) == 0 {
		return []string{} // JSON [], not null: the page spreads these lists
	}
	return slices.Compact(s)
}
