package main

import (
	"context"
	"fmt"
	"time"

	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes/device"
)

// runArmRecover brings a rig out of an alarm (the arm_recover tool).
func runArmRecover(ctx context.Context, args []string) error {
	o := newOperatorFlags("arm recover")
	lease := o.armLeaseFlags()
	const line = "corral arm recover [flags] SERIAL (a rig you hold: its lease in $CORRAL_LEASE or --lease-file)"
	o.Usage = commandUsage(o.flags, line, summary("arm recover"))
	o.positional = true // SERIAL
	if stop, err := o.start(flagsFirst(o.FlagSet, args), armArgs(o, lease, line)); err != nil || stop {
		return err
	}
	serial := o.Arg(0)
	res, err := o.callTool(ctx, "arm_recover", lease.args(serial))
	if err != nil {
		return lease.refused(err, serial)
	}
	fmt.Println(resultText(res))
	return nil
}

// runArmCalibrate calibrates a rig again through the farm (the arm_calibrate tool), saying
// each step as the rig takes it.
func runArmCalibrate(ctx context.Context, args []string) error {
	o := newOperatorFlags("arm calibrate")
	lease := o.armLeaseFlags()
	const line = "corral arm calibrate [flags] SERIAL (corral devices lists the rigs: platform arm; a rig you hold: its lease in $CORRAL_LEASE or --lease-file)"
	o.Usage = commandUsage(o.flags, line, summary("arm calibrate"))
	o.positional = true // SERIAL
	if stop, err := o.start(flagsFirst(o.FlagSet, args), armArgs(o, lease, line)); err != nil || stop {
		return err
	}
	serial := o.Arg(0)
	if err := checkRig(ctx, o, serial); err != nil {
		return err
	}
	fmt.Printf("Calibrating %s. Keep the phone still under the arm and the camera's view clear: the phone shows the calibration page and the finger taps it.\n", serial)
	start := time.Now()
	res, err := o.callToolProgress(ctx, "arm_calibrate", lease.args(serial), func(msg string) {
		fmt.Printf("  %5.1fs  %s\n", time.Since(start).Seconds(), msg)
	})
	if err != nil {
		return lease.refused(err, serial) // checkRig told a serial that is no rig
	}
	fmt.Println(resultText(res))
	return nil
}

// armArgs checks an arm command's one SERIAL and its lease.
func armArgs(o *operatorFlags, lease holderLease, line string) func() error {
	return func() error {
		if err := o.oneArg(line)(); err != nil {
			return err
		}
		return lease.check(o)
	}
}

// checkRig refuses a serial that is no arm rig of the farm, before the calibration's
// instructions are printed: they would only mislead.
func checkRig(ctx context.Context, o *operatorFlags, serial string) error {
	res, err := o.callTool(ctx, "get_device_status", map[string]any{"serial": serial})
	if err != nil {
		return fmt.Errorf("%w (corral devices --platform arm lists the rigs)", err)
	}
	var st mcp.DeviceStatusResult
	if err := structured(res, &st); err != nil {
		return fmt.Errorf("get_device_status's answer: %w", err)
	}
	if st.Platform != device.PlatformArm {
		return fmt.Errorf("%s cannot calibrate: it is not an arm rig (its platform is %s); corral devices --platform arm lists the rigs", serial, st.Platform)
	}
	return nil
}
