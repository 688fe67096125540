package mcp

import (
	"strconv"
	"strings"
	"sync"
)

// The seed's task states (its AgentTask.status) while an agent task runs.
const (
	seedPlanning  = "planning"
	seedExecuting = "executing"
)

// RunningStep is a step of a running agent task as its progress has told it so far.
type RunningStep struct {
	Index  int    `json:"index"`
	Title  string `json:"title,omitempty"`
	Status string `json:"status" jsonschema:"running, success, failed or skipped"`
}

// agentProgress is what a running agent task's progress has told this gateway: the seed's
// status (planning until the plan is made, executing after) and the steps started so far. The
// agent's progress lines are the seed's (nodes/agent: "📋 Plan made (N steps): …", "▶️ Step N:
// title", "✅ Step N done (success, …)", "⏭️ Step N skipped"), so reading them costs nothing
// more than the progress the task sends anyway.
type agentProgress struct {
	mu     sync.Mutex
	status string
	total  int
	steps  []RunningStep
}

func newAgentProgress() *agentProgress { return &agentProgress{status: seedPlanning} }

// saw takes in one progress line of the task.
func (p *agentProgress) saw(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case strings.HasPrefix(line, "📋 Plan made ("):
		p.status = seedExecuting
		p.total, _ = strconv.Atoi(firstNumber(strings.TrimPrefix(line, "📋 Plan made (")))
	case strings.HasPrefix(line, "▶️ Step "):
		n, title, _ := strings.Cut(strings.TrimPrefix(line, "▶️ Step "), ": ")
		title, _, _ = strings.Cut(title, " — ") // the description follows
		p.status = seedExecuting
		p.step(n).Title, p.step(n).Status = title, "running"
	case strings.HasPrefix(line, "✅ Step "), strings.HasPrefix(line, "❌ Step "):
		_, rest, _ := strings.Cut(line, " Step ")
		n, result, _ := strings.Cut(rest, " done (")
		status, _, _ := strings.Cut(result, ",")
		p.step(n).Status = status
	case strings.HasPrefix(line, "⏭️ Step "):
		p.step(firstNumber(strings.TrimPrefix(line, "⏭️ Step "))).Status = "skipped"
	}
}

// step is step n (its index in words) of the task, made when first told of.
func (p *agentProgress) step(n string) *RunningStep {
	i, err := strconv.Atoi(firstNumber(n))
	if err != nil || i < 1 {
		i = len(p.steps) + 1
	}
	for k := range p.steps {
		if p.steps[k].Index == i {
			return &p.steps[k]
		}
	}
	p.steps = append(p.steps, RunningStep{Index: i})
	return &p.steps[len(p.steps)-1]
}

// firstNumber is the digits s begins with.
func firstNumber(s string) string {
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	return s[:end]
}

// fill writes what the progress told into a running task's record: the seed's status, the
// plan's size and the steps so far.
func (p *agentProgress) fill(out *TaskRecordResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out.Status = p.status
	done := 0
	for _, s := range p.steps {
		if s.Status == "success" {
			done++
		}
	}
	out.StepsCompleted = &done
	if p.total > 0 {
		total := p.total
		out.TotalSteps = &total
	}
	out.Steps = append([]RunningStep{}, p.steps...)
}
