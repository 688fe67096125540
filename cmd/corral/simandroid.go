package main

import (
	"context"
	"fmt"

	"github.com/corral-farm/corral/nodes/android/adbsim"
)

// runSimAndroid runs simulated Android devices that a real adb server connects to:
// `corral sim android --count N --listen 127.0.0.1:PORT` prints one `adb connect` line per
// device and serves them until interrupted.
func runSimAndroid(ctx context.Context, args []string) error {
	f := newFlags("sim android")
	count := f.Int("count", 1, "simulated devices to start")
	listen := f.String("listen", "127.0.0.1:5555", "address of the first device; the others take the next ports (port 0: a free port each)")
	model := f.String("model", adbsim.DefaultModel, "model name the devices report (ro.product.model)")
	startup := f.Duration("input-startup", adbsim.DefaultInputStartup, "how long an input command takes to start, as a phone's Java start-up does (100 ms to over 1 s; 0 for none)")
	log, stop, err := f.start(args, func() error {
		if *count < 1 {
			return badValue(fmt.Errorf("--count %d: give how many devices to start, 1 or more", *count))
		}
		if *startup < 0 {
			return badValue(fmt.Errorf("--input-startup %s: give a duration of 0 (none) or more, e.g. 150ms", *startup))
		}
		return checkListen("--listen", *listen, "127.0.0.1:5555")
	})
	if err != nil || stop {
		return err
	}
	farm, err := adbsim.Start(ctx, *count, *listen, adbsim.WithModel(*model), adbsim.WithLogger(log), adbsim.WithInputStartup(*startup))
	if err != nil {
		return err
	}
	defer func() { _ = farm.Close() }()
	for _, d := range farm.Devices() {
		fmt.Println("adb connect " + d.Addr())
	}
	log.Info("simulated Android devices ready", "count", len(farm.Devices()), "model", *model, "input_startup", *startup)
	<-ctx.Done()
	return nil
}
