package steps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// TaskRecord is what an export reads of a task's record: get_task_result's structured result
// (mcp.TaskRecordResult), whether it came through a gateway or an in-process front door.
type TaskRecord struct {
	TaskID string `json:"taskId"`
	Serial string `json:"serial"`
	Tool   string `json:"tool"`
	Status string `json:"status"`
	// Outcome is "running" while the task runs, whatever the agent's status (planning, executing).
	Outcome string          `json:"outcome"`
	Error   string          `json:"error,omitempty"`
	Data    json.RawMessage `json:"data,omitempty"` // the tool's structured result
}

// agentTool is the tool whose records export.
const agentTool = "run_agent_task"

// The pause an export puts before an action, from the time the agent took since the previous
// one: most of that was the model thinking, not the app getting ready, so short waits are
// dropped and long ones capped.
const (
	minReplayWait = 500 * time.Millisecond
	maxReplayWait = 5 * time.Second
)

// Export is an agent task as a steps file.
type Export struct {
	YAML    []byte
	Steps   int      // steps in the file, pauses included
	Actions int      // the agent's actions replayed
	Notes   []string // what to look at before running it (a secret the record does not keep, an agent that failed)
}

// ExportAgentTask turns the record of a run_agent_task into a steps file `corral run` replays
// without a model: the device actions that succeeded, in order, each a tool-call step named
// after its plan step, with expect set to the text the agent saw appear after it, and a sleep_ms
// before an action the agent waited long for (capped at 5 s).
func ExportAgentTask(rec TaskRecord) (*Export, error) {
	id := rec.TaskID
	switch {
	case rec.Tool != agentTool:
		return nil, fmt.Errorf("task %s ran %s, not %s: only agent tasks export", id, rec.Tool, agentTool)
	case rec.Outcome == "running" || rec.Status == "running":
		return nil, fmt.Errorf("task %s is still running: export it once it ended (get_task_result shows its status)", id)
	case len(rec.Data) == 0 || string(rec.Data) == "null":
		return nil, fmt.Errorf("task %s left no result to export (it %s: %s)", id, rec.Status, nonEmpty(rec.Error, "no error recorded"))
	}
	var res tools.AgentTaskResult
	if err := json.Unmarshal(rec.Data, &res); err != nil {
		return nil, fmt.Errorf("task %s: its result is not an agent task's: %w", id, err)
	}
	if len(res.Actions) == 0 {
		return nil, fmt.Errorf("task %s has no actions to export: the agent made no device call that succeeded (it %s%s)", id, res.Status,
			prefixed(": ", res.Error))
	}
	titles := map[int]string{}
	for _, s := range res.Steps {
		titles[s.Index] = s.Title
	}
	ex := &Export{Actions: len(res.Actions)}
	if res.Status != "finished" {
		ex.Notes = append(ex.Notes, fmt.Sprintf("the agent did not finish (it %s%s): the file replays its actions up to there",
			res.Status, prefixed(": ", res.Error)))
	}
	doc := exportDoc{Name: "agent-" + id, Serial: rec.Serial}
	for i, a := range res.Actions {
		args, ok := a.Args.(map[string]any)
		if a.Args != nil && !ok {
			return nil, fmt.Errorf("task %s: action %d (%s) has arguments that are not an object: %s", id, i+1, a.Tool, show(a.Args))
		}
		if args == nil {
			args = map[string]any{}
		}
		args = enumSpelled(a.Tool, args) // the file says HOME where the model wrote "home"
		if strings.TrimSpace(a.Tool) == "" {
			return nil, fmt.Errorf("task %s: action %d names no tool: its record is damaged", id, i+1)
		}
		if wait := time.Duration(a.WaitMS) * time.Millisecond; i > 0 && wait > minReplayWait {
			ms := min(wait, maxReplayWait).Milliseconds()
			doc.Steps = append(doc.Steps, exportStep{Tool: "sleep_ms", Arguments: map[string]any{"milliseconds": ms},
				Name: fmt.Sprintf("wait %d ms, as the agent did (it took %d ms)", ms, a.WaitMS)})
		}
		name := fmt.Sprintf("step %d: %s", a.Step, nonEmpty(titles[a.Step], a.Tool))
		doc.Steps = append(doc.Steps, exportStep{Tool: a.Tool, Arguments: args, Name: name, Expect: strings.TrimSpace(a.ExpectText)})
		if b, _ := json.Marshal(args); strings.Contains(string(b), broker.Redacted) {
			ex.Notes = append(ex.Notes, fmt.Sprintf("%q (%s) carries %s where the record left out a secret: put the value in before running it",
				name, a.Tool, broker.Redacted))
		}
	}
	if n := unchecked(res.Actions); n != "" {
		ex.Notes = append(ex.Notes, fmt.Sprintf("the last action of %s has no expect: the screen after it showed no new text that only "+
			"it shows (a toolbar's label, an app's id or a clock tells no screen apart), so its replay does not check where it landed: "+
			"add an expect by hand where that matters", n))
	}
	ex.Steps = len(doc.Steps)
	var root yaml.Node
	if err := root.Encode(doc); err != nil {
		return nil, fmt.Errorf("task %s: write YAML: %w", id, err)
	}
	flowArguments(&root)
	quoteMergeKeys(&root)
	root.HeadComment = fmt.Sprintf("Agent task %s (%s on %s), exported by `corral tasks export`: its device actions, replayed without a model.\n"+
		"goal: %s\nthe agent: %s%s\n"+
		// The record does not keep the apps' data or the screen the agent began on: say so.
		"first put the device back as the agent found it (this file does not): e.g. corral call app_clear '{\"serial\":\"%[3]s\",\"packageName\":\"APP\"}', then corral call home '{\"serial\":\"%[3]s\"}'\n"+
		"run it: corral run FILE --gateway URL (--serial S for another device)",
		id, agentTool, rec.Serial, commentLine(res.Goal), res.Status, prefixed(": ", commentLine(nonEmpty(res.Conclusion, res.Error))))
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&root); err != nil {
		return nil, fmt.Errorf("task %s: write YAML: %w", id, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("task %s: write YAML: %w", id, err)
	}
	ex.YAML = out.Bytes()
	return ex, nil
}

// exportDoc and exportStep are a steps file in the order a reader wants it.
type (
	exportDoc struct {
		Name   string       `yaml:"name"`
		Serial string       `yaml:"serial"`
		Steps  []exportStep `yaml:"steps"`
	}
	exportStep struct {
		Tool      string         `yaml:"tool"`
		Arguments map[string]any `yaml:"arguments"`
		Name      string         `yaml:"name"`
		Expect    string         `yaml:"expect,omitempty"`
	}
)

// flowArguments writes each step's arguments on one line, {bbox: [0.25, 0.29, 0.5, 0.43]}, so
// a step reads as the call it makes.
func flowArguments(root *yaml.Node) {
	for _, list := range valuesOf(root, "steps") {
		for _, step := range list.Content {
			for _, args := range valuesOf(step, "arguments") {
				args.Style = yaml.FlowStyle
			}
		}
	}
}

// quoteMergeKeys quotes every "<<" (a button's label, say): yaml.v3 writes that string as a
// merge key, which does not read back as text.
func quoteMergeKeys(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.Value == "<<" {
		n.Tag, n.Style = "!!str", yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		quoteMergeKeys(c)
	}
}

// valuesOf returns the values of key in a YAML mapping.
func valuesOf(m *yaml.Node, key string) []*yaml.Node {
	var out []*yaml.Node
	for i := 0; m.Kind == yaml.MappingNode && i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			out = append(out, m.Content[i+1])
		}
	}
	return out
}

func nonEmpty(s, otherwise string) string {
	if strings.TrimSpace(s) == "" {
		return otherwise
	}
	return s
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

// commentLine folds s to one line a comment can hold.
func commentLine(s string) string { return clip(fold(s), 200) }
