package agent

import "strings"

// oneStep is a plan of several steps made one, for a run that allows only one (ai_action: one
// round of look, act and check). The model split one action into parts ("Open search", "Type
// milk"): taking the first part would drop what the caller asked for, and asking again costs a
// model call (10-30 s for a local model) that may split it again; the one step does all parts
// in order, bounded by the run's action budget all the same.
func oneStep(parts []planStep) planStep {
	titles := make([]string, len(parts))
	var how []string
	for i, p := range parts {
		titles[i] = p.title
		if p.description != "" {
			how = append(how, p.title+": "+p.description)
		}
	}
	return planStep{cut(strings.Join(titles, ", then "), maxTitleRunes), cut(strings.Join(how, "; "), maxDescRunes)}
}
