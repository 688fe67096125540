package adbsim_test

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/corral-farm/corral/nodes/android/adbsim"
)

// Two simulated devices, driven by the real adb through a server on a private port (started
// beforehand with `adb -P 15037 start-server`).
func ExampleStart() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // stops the devices
	farm, err := adbsim.Start(ctx, 2, "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	d := farm.Devices()[0]
	_ = exec.Command("adb", "-P", "15037", "connect", d.Addr()).Run()
	_ = exec.Command("adb", "-P", "15037", "-s", d.Serial(), "shell", "input", "tap", "540", "1200").Run()
	fmt.Println(d.Commands())         // [input tap 540 1200]
	fmt.Println(d.Phone().InputLog()) // [tap 540 1200 hold=0s]
}
