package agent

import (
	"fmt"
	"strings"
)

// seeing is how every prompt explains the screen and its coordinates.
const seeing = `You see the screen as a screenshot and, when there is one, a listing of its elements, one per line: ` +
	`id [kind] "label" [left,top,right,bottom] conf, where the bbox is relative to the screen (0-1, from the top left). ` +
	`Coordinates you give are relative 0-1 (x from the left, y from the top), or a bbox copied from the listing.`

func planPrompt(maxSteps int) string {
	return `You are an agent operating a phone for a user through tools. ` + seeing + "\n" +
		fmt.Sprintf(`First make a plan: split the user's goal into %s, each one thing done on the phone `+
			`(open an app, tap something, type text, read a value), in order, starting from the screen shown. `+
			`Call the function plan with the steps; do not act yet. `+
			`If the screen shows the goal already met (or the value it asks for), call finished with the conclusion instead.`, upToSteps(maxSteps, "short"))
}

const stepPrompt = `You are an agent operating a phone for a user through tools, one step of a plan at a time. ` + seeing + `
Act with the device tools; after your actions you are shown the new screen: check it before going on.
When the current step is done, call step_done with status "success" and a short summary of what the screen shows; ` +
	`if it cannot be done, call step_done with status "failed" and say why.
If the user's whole goal is already met, call finished with the conclusion, including any value the goal asked for.
Answer every turn with a tool call. Do not repeat an action that did not change the screen: try another way.`

const concludePrompt = `You are an agent that operated a phone for a user through tools. ` + seeing + `
The plan is done. Call finished with the conclusion for the user: what was done, and any value the goal asked for.`

// recap is the goal and the plan with what each step found so far; current is the index of
// the step being done, or len(steps) when all are done.
func recap(goal string, steps []Step, summaries []string, current int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The user's goal: %s\n\nThe plan:", goal)
	for i, s := range steps {
		state := "to do"
		switch {
		case i < current:
			state = "done: " + summaries[i]
		case i == current:
			state = "current"
		}
		fmt.Fprintf(&b, "\n%d. %s [%s]", s.Index, s.Title, strings.TrimSuffix(state, ": "))
	}
	if current < len(steps) {
		s := steps[current]
		fmt.Fprintf(&b, "\n\nDo step %d now: %s", s.Index, s.Title)
		if s.Description != "" {
			b.WriteString("\n" + s.Description)
		}
	}
	return b.String()
}
