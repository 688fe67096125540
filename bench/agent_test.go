package bench

import (
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// agentOp is one move of a scripted model that only chooses among the elements the agent
// listed: tap the element labelled label, scroll up until it shows, type text, end the step, or
// finish.
type agentOp struct{ kind, label string }

// agentGoals are the benchmark's goals on a simulated phone (1080x2400), each with its plan
// and its moves.
var agentGoals = []struct {
	name, goal string
	plan       []string
	ops        []agentOp
}{
	{"toggle-setting", "turn Wi-Fi off in Settings", []string{"Open Settings", "Open Wi-Fi", "Turn it off"},
		[]agentOp{{"tap", "Settings"}, {"done", ""}, {"tap", "Wi-Fi"}, {"done", ""}, {"tap", "Use Wi-Fi"}, {"finish", "Wi-Fi is off"}}},
	{"type-message", "write hello in Notes", []string{"Open Notes", "Write hello"},
		[]agentOp{{"tap", "Notes"}, {"done", ""}, {"type", "hello from the agent"}, {"finish", "wrote it"}}},
	{"scroll-find", "open Item 24 in Shop", []string{"Open Shop", "Find Item 24"},
		[]agentOp{{"tap", "Shop"}, {"done", ""}, {"scroll", "Item 24"}, {"finish", "Item 24 is open"}}},
}

// scriptedAgent answers an agent's requests as a model would that reads the listing it was
// sent: the plan first, then each move, taking every bbox from the latest listing. Its token
// counts are a vision model's (a screenshot is about a thousand tokens, not its bytes).
func scriptedAgent(plan []string, ops []agentOp) modelsim.Turn {
	a := &scripted{plan: plan, ops: ops}
	return modelsim.Turn{Reply: func(req modelsim.Request) modelsim.Turn {
		t := a.decide(req)
		t.Usage = &modelsim.Usage{PromptTokens: 1500, CompletionTokens: 40}
		return t
	}}
}

// scripted is a scripted model's state: its plan, its moves and the next one.
type scripted struct {
	mu   sync.Mutex
	plan []string
	ops  []agentOp
	next int
}

func (a *scripted) decide(req modelsim.Request) modelsim.Turn {
	a.mu.Lock()
	defer a.mu.Unlock()
	call := func(name string, args any) modelsim.Turn {
		b, _ := json.Marshal(args)
		return modelsim.Call(modelsim.ToolCall{Name: name, Arguments: string(b)})
	}
	if slices.ContainsFunc(req.Tools, func(t modelsim.Tool) bool { return t.Name == "plan" }) {
		steps := make([]map[string]string, len(a.plan))
		for i, p := range a.plan {
			steps[i] = map[string]string{"title": p}
		}
		return call("plan", map[string]any{"steps": steps})
	}
	if a.next >= len(a.ops) {
		return call("finished", map[string]string{"content": "done"})
	}
	op := a.ops[a.next]
	switch op.kind {
	case "tap", "scroll":
		bbox, ok := req.BBox(op.label)
		if !ok && op.kind == "scroll" {
			return call("swipe_direction", map[string]string{"direction": "up"})
		}
		if !ok {
			return modelsim.Say("I cannot see " + op.label)
		}
		a.next++
		return call("tap", map[string]any{"bbox": bbox})
	case "type":
		a.next++
		return call("input", map[string]string{"text": op.label})
	case "done":
		a.next++
		return call("step_done", map[string]string{"status": "success", "summary": "done"})
	}
	a.next++
	return call("finished", map[string]string{"content": op.label})
}

// BenchmarkAgent runs run_agent_task through the front door on a simulated phone (1080x2400)
// for a few goals, with a scripted model that answers at once and only chooses among the
// elements the agent listed: steps, model calls, tokens and wall time per goal, and Corral's
// own time per model call (everything but the model's: looking at the screen, the model
// request's encoding, acting, the records), target ≤ 50 ms.
func BenchmarkAgent(b *testing.B) {
	for _, g := range agentGoals {
		b.Run("goal="+g.name, func(b *testing.B) {
			var walls, perCall []time.Duration
			var calls, tokens, actions int
			for b.Loop() {
				srv := modelsim.New()
				m, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "scripted"}, nil)
				if err != nil {
					b.Fatal(err)
				}
				f := farmtest.StartEmpty(b, farmtest.Options{Quiet: true, Model: m})
				if err := f.StartNodes(1, "n1"); err != nil {
					b.Fatal(err)
				}
				f.WaitDevices(1, broker.StateOnline)
				srv.Script(slices.Repeat([]modelsim.Turn{scriptedAgent(g.plan, g.ops)}, 64)...)
				c := httpClient(b, f, "bench-agent")
				start := time.Now()
				res, err := call(c, "run_agent_task", map[string]any{"serial": "n1-p1", "goal": g.goal})
				wall := time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				var out struct {
					Status     string
					ModelCalls int
					Tokens     int
					Actions    []json.RawMessage
				}
				if err := farmtest.Decode(res, &out); err != nil || out.Status != "finished" {
					b.Fatalf("%s: %v %+v: %s", g.name, err, out, farmtest.Text(res))
				}
				walls = append(walls, wall)
				perCall = append(perCall, wall/time.Duration(out.ModelCalls))
				calls, tokens, actions = out.ModelCalls, out.Tokens, len(out.Actions)
				srv.Close()
			}
			slices.Sort(walls)
			slices.Sort(perCall)
			b.ReportMetric(float64(percentile(walls, 0.5).Milliseconds()), "wall-ms")
			b.ReportMetric(float64(percentile(perCall, 0.5).Microseconds())/1000, "overhead-ms/call")
			b.ReportMetric(float64(calls), "model-calls")
			b.ReportMetric(float64(actions), "actions")
			b.ReportMetric(float64(tokens), "tokens")
		})
	}
}
