package agent

import (
	"fmt"
	"strings"
)

// reportRunes bounds a tool call's arguments and result in the report, which an agent
// reads whole.
const reportRunes = 200

// Markdown is the report the seed's MCP server returns for run_agent_task: a heading with
// the outcome, goal, status, steps succeeded, duration, conclusion and error, then each step
// with its tool calls (results cut) and error.
func (t *Task) Markdown() string {
	var b strings.Builder
	icon, word := "🔄", "running"
	switch t.Status {
	case StatusFinished:
		icon, word = "✅", "finished"
	case StatusFailed:
		icon, word = "❌", "failed"
	case StatusAborted:
		icon, word = "⏹️", "aborted"
		if t.TimedOut {
			icon, word = "⏱️", "timed out"
		}
	case StatusIdle, "":
		icon, word = "⏳", "not started"
	}
	fmt.Fprintf(&b, "## %s Agent task %s\n\n", icon, word)
	fmt.Fprintf(&b, "**Goal**: %s\n", oneLine(t.Goal))
	fmt.Fprintf(&b, "**Status**: %s  **Steps**: %d/%d succeeded  **Duration**: %s\n",
		t.Status, t.StepsCompleted(), len(t.Steps), seconds(t.DurationMS))
	if t.Conclusion != "" {
		fmt.Fprintf(&b, "\n**Conclusion**: %s\n", strings.TrimSpace(t.Conclusion))
	}
	if t.Error != "" {
		fmt.Fprintf(&b, "\n**Error**: %s\n", oneLine(t.Error))
	}
	if len(t.Steps) > 0 {
		b.WriteString("\n---\n")
	}
	for _, s := range t.Steps {
		fmt.Fprintf(&b, "\n### %s Step %d: %s (%s)\n", stepIcon(s.Status), s.Index, oneLine(s.Title), seconds(s.DurationMS))
		for _, c := range s.ToolCalls {
			call := code(fmt.Sprintf("%s(%s)", c.Name, cut(string(c.Args), reportRunes)))
			if c.Error != "" {
				fmt.Fprintf(&b, "- %s → ❌ %s\n", call, cut(oneLine(c.Error), reportRunes))
			} else {
				fmt.Fprintf(&b, "- %s → %s\n", call, cut(oneLine(c.Result), reportRunes))
			}
		}
		if s.Error != "" {
			fmt.Fprintf(&b, "- ❌ %s\n", oneLine(s.Error))
		}
	}
	return b.String()
}

func stepIcon(status string) string {
	switch status {
	case StepSuccess:
		return "✅"
	case StepFailed:
		return "❌"
	case StepSkipped:
		return "⏭️"
	case StepRunning:
		return "🔄"
	}
	return "⏸️"
}

func seconds(ms int64) string { return fmt.Sprintf("%.1fs", float64(ms)/1000) }

// code is s as inline Markdown code, fenced with more backticks than s holds in a row.
func code(s string) string {
	run, most := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			most = max(most, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", most+1)
	if most > 0 {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
