package main

import "context"

// simulators is corral sim: the simulators, each speaking a real protocol (group: the one place
// one is added).
func simulators() group {
	return group{name: "sim", kind: "simulator", subs: []subcommand{
		{name: "android", synopsis: "--count N --listen 127.0.0.1:PORT", what: "run simulated Android devices that speak adb (the devices' own adbd protocol), from --listen's port on", run: runSimAndroid},
		{name: "ios", synopsis: "--count N --listen 127.0.0.1:PORT", what: "run a simulated usbmuxd serving simulated iPhones on --listen", run: runSimIOS},
		{name: "arm", synopsis: "--listen 127.0.0.1:PORT", what: "run a simulated arm rig: a GRBL controller on --listen, its camera and calibration readback on --http", run: runSimArm},
		{name: "model", synopsis: "--listen 127.0.0.1:PORT --script FILE", what: "run a scripted model: the OpenAI-compatible chat API on --listen, answering with the turns of --script, one per request", run: runSimModel},
	}}
}

// runSim dispatches the simulators.
func runSim(ctx context.Context, args []string) error { return simulators().run(ctx, args) }
