package console

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/corral-farm/corral/broker"
)

// A device's task timeline: its latest task records from the event stream, newest first, with
// the steps of agent tasks and the marked screens of actions given pre_mark_operation. A record
// keeps no tool arguments (secrets may be among them); an agent task's steps keep the
// arguments of the calls its model made, already redacted.

// Bounds of a timeline.
const (
	timelineTasks   = 25   // records shown
	timelineScan    = 2000 // task records read at most, the newest, whatever their device
	timelineTTL     = 2 * time.Second
	maxShownText    = 600 // characters of a summary, an error or arguments shown
	maxHistoryCache = 256 // devices whose timelines are kept
)

// agentTools are the tools whose records carry an agent's steps.
var agentTools = map[string]bool{"run_agent_task": true, "ai_action": true}

// taskView is one task record as the timeline shows it.
type taskView struct {
	ID         string       `json:"id"`
	Tool       string       `json:"tool"`
	Holder     string       `json:"holder"`
	Outcome    string       `json:"outcome"`
	Code       string       `json:"code,omitempty"`
	Error      string       `json:"error,omitempty"`
	Text       string       `json:"text,omitempty"`
	AbortedBy  string       `json:"aborted_by,omitempty"`
	Submitted  time.Time    `json:"submitted,omitzero"`
	Started    time.Time    `json:"started,omitzero"`
	Finished   time.Time    `json:"finished,omitzero"`
	DurationMS int64        `json:"duration_ms"`
	Goal       string       `json:"goal,omitempty"`
	Steps      []stepView   `json:"steps,omitempty"`
	Actions    []actionView `json:"actions,omitempty"`
	Marks      []markView   `json:"marks,omitempty"`
}

// markView is a screen a task's gesture acted on, its target marked (pre_mark_operation), as
// the console serves it: from the timeline's own path, so that only those of the device's
// recent tasks are served, to those who may see the device.
type markView struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// stepView is one step of an agent task.
type stepView struct {
	Index      int        `json:"index"`
	Title      string     `json:"title"`
	Status     string     `json:"status"`
	Error      string     `json:"error,omitempty"`
	DurationMS int64      `json:"duration_ms"`
	Calls      []callView `json:"calls,omitempty"`
}

// callView is one tool call of an agent's step.
type callView struct {
	Name       string `json:"name"`
	Args       string `json:"args,omitempty"`
	Result     string `json:"result,omitempty"`
	Error      string `json:"error,omitempty"`
	DurationMS int64  `json:"duration_ms"`
}

// actionView is one device call of ai_action.
type actionView struct {
	Tool string `json:"tool"`
	Args string `json:"args,omitempty"`
}

// taskOf maps a task record to its view.
func taskOf(r broker.TaskResult) taskView {
	t := taskView{ID: r.ID, Tool: r.Tool, Holder: r.Holder.String(), Outcome: r.Outcome, Code: r.Code, Error: clip(r.Error),
		Text: clip(r.Text), AbortedBy: r.AbortedBy, Submitted: r.Submitted, Started: r.Started, Finished: r.Finished}
	if !r.Started.IsZero() && r.Finished.After(r.Started) {
		t.DurationMS = r.Finished.Sub(r.Started).Milliseconds()
	}
	if agentTools[r.Tool] && len(r.Data) > 0 {
		t.Goal, t.Steps, t.Actions = agentData(r.Data)
	}
	t.Marks = marksOf(r)
	return t
}

// marksOf are the marked screens a record names: its own task's only (the name says whose,
// and the store checks the image against the digest in it).
func marksOf(r broker.TaskResult) []markView {
	if !bytes.Contains(r.Data, []byte(`"markedScreenshots"`)) { // most records: not decoded again
		return nil
	}
	var d struct {
		Marked []string `json:"markedScreenshots"`
	}
	if json.Unmarshal(r.Data, &d) != nil {
		return nil
	}
	var out []markView
	for _, name := range d.Marked {
		if broker.ScreenshotOfTask(name, r.ID) {
			out = append(out, markView{Name: name, URL: "/console/devices/" + url.PathEscape(r.Serial) + "/timeline?" + url.Values{"shot": {name}}.Encode()})
		}
	}
	return out
}

// agentData reads an agent task's goal, steps and actions from its record's data: what
// run_agent_task (goal, steps with their calls) and ai_action (actions) keep.
func agentData(data json.RawMessage) (string, []stepView, []actionView) {
	var d struct {
		Goal  string `json:"goal"`
		Steps []struct {
			Index      int    `json:"index"`
			Title      string `json:"title"`
			Status     string `json:"status"`
			Error      string `json:"error"`
			DurationMS int64  `json:"durationMs"`
			ToolCalls  []struct {
				Name       string          `json:"name"`
				Args       json.RawMessage `json:"args"`
				Result     string          `json:"result"`
				Error      string          `json:"error"`
				DurationMS int64           `json:"durationMs"`
			} `json:"toolCalls"`
		} `json:"steps"`
		Actions []struct {
			Tool string          `json:"tool"`
			Args json.RawMessage `json:"args"`
		} `json:"actions"`
		ActionTaken json.RawMessage `json:"actionTaken"` // the calls, in records from before 2026-12-03
	}
	if json.Unmarshal(data, &d) != nil {
		return "", nil, nil
	}
	if len(d.Actions) == 0 && len(d.ActionTaken) > 0 && d.ActionTaken[0] == '[' {
		_ = json.Unmarshal(d.ActionTaken, &d.Actions)
	}
	var steps []stepView
	for _, s := range d.Steps {
		sv := stepView{Index: s.Index, Title: clip(s.Title), Status: s.Status, Error: clip(s.Error), DurationMS: s.DurationMS}
		for _, c := range s.ToolCalls {
			sv.Calls = append(sv.Calls, callView{Name: c.Name, Args: clip(compact(c.Args)), Result: clip(c.Result), Error: clip(c.Error), DurationMS: c.DurationMS})
		}
		steps = append(steps, sv)
	}
	var actions []actionView
	for _, a := range d.Actions {
		actions = append(actions, actionView{Tool: a.Tool, Args: clip(compact(a.Args))})
	}
	return clip(d.Goal), steps, actions
}

// compact renders JSON arguments on one line; "" for none.
func compact(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" || string(raw) == "{}" {
		return ""
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// clip shortens s to maxShownText characters.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= maxShownText {
		return s
	}
	r := []rune(s)
	return string(r[:maxShownText]) + "…"
}

// historyCache keeps each device's timeline for timelineTTL, so that many viewers of one
// device read the event stream once.
type historyCache struct {
	history History
	mu      sync.Mutex
	bySer   map[string]*cached[[]taskView]
}

func newHistoryCache(h History) *historyCache {
	return &historyCache{history: h, bySer: map[string]*cached[[]taskView]{}}
}

// timeline returns the device's latest tasks, or why they are missing.
func (c *Console) timeline(ctx context.Context, serial string) ([]taskView, string) {
	hc := c.history
	if hc.history == nil {
		return []taskView{}, "this gateway cannot read task history"
	}
	hc.mu.Lock()
	ch, ok := hc.bySer[serial]
	if !ok {
		if len(hc.bySer) >= maxHistoryCache {
			clear(hc.bySer)
		}
		ch = newCached(timelineTTL, func(ctx context.Context) ([]taskView, error) {
			h, err := hc.history.TaskHistory(ctx, broker.HistoryQuery{Serial: serial, Limit: timelineTasks, MaxScan: timelineScan})
			out := make([]taskView, 0, len(h.Tasks))
			for _, r := range h.Tasks {
				out = append(out, taskOf(r))
			}
			return out, err
		})
		hc.bySer[serial] = ch
	}
	hc.mu.Unlock()
	tasks, err := ch.get(ctx)
	if tasks == nil {
		tasks = []taskView{}
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return tasks, ""
		}
		return tasks, "task history unreadable: " + err.Error()
	}
	return tasks, ""
}

// timelineFragment serves the rows of a device's timeline, as the device page shows them:
// /console/devices/{serial}/timeline. The page swaps them in; the markup stays in templates.
func (c *Console) timelineFragment(w http.ResponseWriter, r *http.Request) {
	d, ok := c.visible(r.Context(), r.PathValue("serial"))
	if !ok {
		http.Error(w, "no such device: it is not in the registry, or your token may not use it", http.StatusNotFound)
		return
	}
	if v := viewerFrom(r.Context()); !v.mayTasks() {
		http.Error(w, "forbidden: "+v.hidden(viewTimeline), http.StatusForbidden)
		return
	}
	tasks, msg := c.timeline(r.Context(), d.Serial)
	if shot := r.URL.Query().Get("shot"); shot != "" {
		c.markedShot(w, r, tasks, shot)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	c.pages.render(w, "timeline", http.StatusOK, timelineData{Tasks: tasks, Error: msg})
}

// screenshotReader reads a task's screenshot by name, checked (broker.Client); a console whose
// History is one serves its timeline's marked screens.
type screenshotReader interface {
	Screenshot(ctx context.Context, name string) ([]byte, error)
}

// markedShot serves one marked screen of tasks, the device's timeline:
// /console/devices/{serial}/timeline?shot=tasks/<task>/<sha256>.jpg.
func (c *Console) markedShot(w http.ResponseWriter, r *http.Request, tasks []taskView, name string) {
	sr, ok := c.cfg.History.(screenshotReader)
	if !ok {
		http.Error(w, "this gateway cannot read screenshots", http.StatusNotFound)
		return
	}
	listed := slices.ContainsFunc(tasks, func(t taskView) bool {
		return slices.ContainsFunc(t.Marks, func(m markView) bool { return m.Name == name })
	})
	if !listed {
		http.Error(w, "no such marked screen among this device's recent tasks", http.StatusNotFound)
		return
	}
	jpeg, err := sr.Screenshot(r.Context(), name)
	if err != nil {
		c.log.Warn("a marked screen of the timeline cannot be read", "name", name, "err", err)
		http.Error(w, "the marked screen cannot be read: "+err.Error(), http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "image/jpeg")
	w.Header().Set("Cache-Control", "private, max-age=86400, immutable") // its name is its digest
	_, _ = w.Write(jpeg)
}

// timelineData is the timeline template's data.
type timelineData struct {
	Tasks []taskView
	Error string
}
