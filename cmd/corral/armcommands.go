package main

import (
	"context"
	"strings"
)

// armCommands is corral arm: the arm rig commands (group: the one place one is added).
func armCommands() group {
	return group{name: "arm", kind: "subcommand", subs: []subcommand{
		{name: "calibrate", synopsis: "[flags] SERIAL", brief: "SERIAL calibrates one again, step by step", what: "calibrate the arm rig SERIAL again, step by step", run: runArmCalibrate},
		{name: "recover", synopsis: "[flags] SERIAL", brief: "SERIAL unlocks one after an alarm", what: "unlock the arm rig SERIAL after an alarm", run: runArmRecover},
		{name: "page", synopsis: "[--listen ADDR]", brief: "serves the calibration page to phones without a cable", what: "serve the calibration page to the phones under the arms that have no cable", run: runArmPage},
	}}
}

// armBriefs are what corral's usage says of arm.
func armBriefs() string {
	var briefs []string
	for _, a := range armCommands().subs {
		briefs = append(briefs, "corral arm "+a.name+" "+a.brief)
	}
	return "arm rigs: " + strings.Join(briefs, "; ")
}

// runArm dispatches the arm rig commands.
func runArm(ctx context.Context, args []string) error { return armCommands().run(ctx, args) }
