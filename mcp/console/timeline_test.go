package console

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// records of d1: a failed tap (whose error holds markup), an agent task with its steps, and an
// ai_action with its calls; and one of d2.
func records() []broker.TaskResult {
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	agent := `{"taskId":"t_agent","goal":"open Settings","status":"finished","steps":[
	  {"index":1,"title":"Find Settings","status":"success","durationMs":1200,"toolCalls":[
	    {"name":"tap","args":{"bbox":[0.1,0.2,0.3,0.4]},"result":"tapped","durationMs":300},
	    {"name":"step_done","args":{},"durationMs":1}]},
	  {"index":2,"title":"Check","status":"failed","error":"not there","durationMs":50}]}`
	action := `{"message":"done","prompt":"tap it","status":"finished","actionTaken":"tap_xy {\"x\":0.5,\"y\":0.5}",
	  "actions":[{"step":1,"tool":"tap_xy","args":{"x":0.5,"y":0.5},"waitMs":0}]}`
	return []broker.TaskResult{
		{ID: "t_tap", Serial: "d1", Node: "n1", Tool: "tap_xy", Holder: broker.Holder{Principal: "alice"}, Outcome: broker.OutcomeFailed,
			Code: broker.CodeDriver, Error: "<script>alert(1)</script>", Started: at, Finished: at.Add(40 * time.Millisecond)},
		{ID: "t_agent", Serial: "d1", Node: "n1", Tool: "run_agent_task", Holder: broker.Holder{Principal: "bob"}, Outcome: broker.OutcomeSucceeded,
			Data: json.RawMessage(agent), Text: strings.Repeat("report ", 200), Started: at, Finished: at.Add(2 * time.Second)},
		{ID: "t_action", Serial: "d1", Node: "n1", Tool: "ai_action", Outcome: broker.OutcomeSucceeded, Data: json.RawMessage(action)},
		{ID: "t_other", Serial: "d2", Node: "n2", Tool: "home", Outcome: broker.OutcomeSucceeded},
	}
}

func TestTaskViews(t *testing.T) {
	rs := records()
	tap := taskOf(rs[0])
	if tap.DurationMS != 40 || tap.Holder != "alice" || tap.Steps != nil {
		t.Errorf("tap: %+v", tap)
	}
	a := taskOf(rs[1])
	if a.Goal != "open Settings" || len(a.Steps) != 2 || len(a.Steps[0].Calls) != 2 {
		t.Fatalf("agent task: %+v", a)
	}
	if c := a.Steps[0].Calls[0]; c.Name != "tap" || c.Args != `{"bbox":[0.1,0.2,0.3,0.4]}` || c.Result != "tapped" {
		t.Errorf("a step's call: %+v", c)
	}
	if a.Steps[0].Calls[1].Args != "" || a.Steps[1].Error != "not there" {
		t.Errorf("steps: %+v", a.Steps)
	}
	if !strings.HasSuffix(a.Text, "…") || len([]rune(a.Text)) != maxShownText+1 {
		t.Errorf("a long summary is not clipped: %d runes", len([]rune(a.Text)))
	}
	if act := taskOf(rs[2]); len(act.Actions) != 1 || act.Actions[0].Tool != "tap_xy" || act.Actions[0].Args != `{"x":0.5,"y":0.5}` {
		t.Errorf("ai_action: %+v", act)
	}
	// An ai_action record from before 2026-12-03 kept its calls as actionTaken.
	old := broker.TaskResult{ID: "t_old", Tool: "ai_action", Data: json.RawMessage(`{"actionTaken":[{"step":1,"tool":"home","args":{}}]}`)}
	if act := taskOf(old); len(act.Actions) != 1 || act.Actions[0].Tool != "home" {
		t.Errorf("an older ai_action record's calls: %+v", act.Actions)
	}
	// Another tool's data is not read as steps, and bad data is no error.
	if v := taskOf(broker.TaskResult{Tool: "sequence", Data: json.RawMessage(`{"steps":[{"title":"x"}]}`)}); v.Steps != nil {
		t.Errorf("a sequence's data read as agent steps: %+v", v)
	}
	if v := taskOf(broker.TaskResult{Tool: "run_agent_task", Data: json.RawMessage(`[1,2`)}); v.Steps != nil || v.Goal != "" {
		t.Errorf("bad data: %+v", v)
	}
}

// The device page and its timeline's rows show the device's records only, newest first as the
// history gives them, escaped, with the agent's steps.
func TestTimelineRows(t *testing.T) {
	srv := httptest.NewServer(New(Config{Farm: testFarm(), History: &fakeHistory{tasks: records()}, Authenticate: authenticate}))
	t.Cleanup(srv.Close)
	resp, body := get(t, srv, "/console/devices/d1/timeline", simToken)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	for _, want := range []string{`data-task="t_tap"`, `data-outcome="failed"`, "&lt;script&gt;alert(1)&lt;/script&gt;", `data-task="t_agent"`,
		"Goal: open Settings", "Find Settings", `{&#34;bbox&#34;:[0.1,0.2,0.3,0.4]}`, "not there", `data-task="t_action"`, "Agent's calls"} {
		if !strings.Contains(body, want) {
			t.Errorf("the timeline does not show %q", want)
		}
	}
	if strings.Contains(body, "<script>") || strings.Contains(body, "t_other") {
		t.Errorf("unescaped markup or another device's task:\n%s", body)
	}
	if strings.Index(body, "t_tap") > strings.Index(body, "t_agent") {
		t.Error("not in the history's order")
	}
	resp, body = get(t, srv, "/devices/d1", simToken)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `data-task="t_agent"`) || !strings.Contains(body, "/console/static/device.js") {
		t.Fatalf("device page: %d\n%s", resp.StatusCode, body)
	}
	var d deviceData
	if _, body := get(t, srv, "/console/api/devices/d1", simToken); json.Unmarshal([]byte(body), &d) != nil || len(d.Tasks) != 3 || d.Device.Serial != "d1" {
		t.Fatalf("device JSON: %s", body)
	}
	if _, body := get(t, srv, "/console/api/devices/d1?tasks=0", simToken); json.Unmarshal([]byte(body), &d) != nil || len(d.Tasks) != 0 {
		t.Fatalf("device JSON without tasks: %s", body)
	}

	// Without history, the timeline says so.
	bare := httptest.NewServer(New(Config{Farm: testFarm()}))
	t.Cleanup(bare.Close)
	if _, body := get(t, bare, "/console/devices/d1/timeline", ""); !strings.Contains(body, "cannot read task history") {
		t.Errorf("no history: %s", body)
	}
}

// The style and scripts are served; the templates are not.
func TestStaticFiles(t *testing.T) {
	srv := httptest.NewServer(New(Config{Farm: testFarm(), Authenticate: authenticate}))
	t.Cleanup(srv.Close)
	for path, want := range map[string]int{"/console/static/console.css": 200, "/console/static/console.js": 200, "/console/static/grid.js": 200,
		"/console/static/device.js": 200, "/console/static/grid.html": 404, "/console/static/": 404, "/nothing": 404} {
		if resp, _ := get(t, srv, path, ""); resp.StatusCode != want {
			t.Errorf("%s: %d, want %d", path, resp.StatusCode, want)
		}
	}
}
