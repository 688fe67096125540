package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/corral-farm/corral/nodes/agent/model"
)

// loopRepeats is how many times the same action on the same screen makes a loop: twice can be
// a retry after a slow screen, a third time is a model going round.
const loopRepeats = 3

// guard keeps a run within its budget and out of loops.
type guard struct {
	budget  Budget
	actions int            // device calls tried
	seen    map[string]int // action on a screen → times tried
}

func newGuard(b Budget) *guard { return &guard{budget: b, seen: map[string]int{}} }

// smallerTask is what to do when a task runs out of tokens: no argument raises the budget (each
// screenshot costs tokens, so fewer steps cost fewer), and no setting either.
const smallerTask = "split the goal into smaller agent tasks, or make it more direct, so that each needs fewer steps " +
	"(run_agent_task's maxSteps caps them); a model that reads screenshots in fewer tokens helps too"

// oneAction is smallerTask for a run of one step (ai_action): one action asked too much.
const oneAction = "ask for less in one action (split it into several calls), or word it more directly; " +
	"a model that reads screenshots in fewer tokens helps too"

// smaller is what to do when the run ran out of its budget: smallerTask, or oneAction.
func (g *guard) smaller() string {
	if g.budget.MaxSteps == 1 {
		return oneAction
	}
	return smallerTask
}

// tokens fails once the run has used more tokens than its budget.
func (g *guard) tokens(u model.Usage) error {
	if u.TotalTokens > g.budget.MaxTokens {
		return failed(failBudget, fmt.Errorf("budget: %d tokens used, more than the %d a task may use: %s", u.TotalTokens, g.budget.MaxTokens, g.smaller()))
	}
	return nil
}

// tokensLeft says whether another model call may start.
func (g *guard) tokensLeft(u model.Usage) error {
	if u.TotalTokens >= g.budget.MaxTokens {
		return failed(failBudget, fmt.Errorf("budget: all %d tokens a task may use are used: %s", g.budget.MaxTokens, g.smaller()))
	}
	return nil
}

// refund takes back the admission of a call the device refused without acting (its arguments
// were wrong): it neither used an action nor repeated one on the screen, so it is no loop.
func (g *guard) refund(tool, args, screen string) {
	key := tool + "\x00" + args + "\x00" + screen
	if g.seen[key]--; g.seen[key] <= 0 {
		delete(g.seen, key)
	}
	g.actions--
}

// action admits one device call of tool with args on screen, or says why not.
func (g *guard) action(tool, args, screen string) error {
	if g.actions >= g.budget.MaxActions {
		if g.budget.MaxSteps == 1 { // one action (ai_action): asking for less in it is the way
			return failed(failBudget, fmt.Errorf("budget: all %d device actions one action may make are used: ask for less in one action "+
				"(split it into several calls), or word it more directly", g.budget.MaxActions))
		}
		// The budget is fixed a task: no argument raises it, so smaller tasks are the way.
		return failed(failBudget, fmt.Errorf("budget: all %d device actions used: split the goal into smaller agent tasks, each with fewer actions "+
			"(the budget is %d a task), or make the goal more direct", g.budget.MaxActions, g.budget.MaxActions))
	}
	key := tool + "\x00" + args + "\x00" + screen
	g.seen[key]++
	if n := g.seen[key]; n >= loopRepeats {
		return failed(failLoop, fmt.Errorf("loop detected: %s(%s) for the %s time on the same screen, which it did not change: "+
			"the model is going round; rephrase the goal or try a stronger model", tool, cut(args, 200), ordinal(n)))
	}
	g.actions++
	return nil
}

func ordinal(n int) string {
	switch n {
	case 1:
		return "first"
	case 2:
		return "second"
	case 3:
		return "third"
	}
	return fmt.Sprintf("%dth", n)
}

// screenKey identifies what the screen showed: its element listing when it has one (stable
// across JPEG noise), else the image.
func screenKey(o Observation) string {
	h := sha256.New()
	if o.Elements != "" {
		h.Write([]byte(o.Elements))
	} else {
		h.Write(o.JPEG)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}
