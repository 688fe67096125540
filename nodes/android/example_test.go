package android_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/corral-farm/corral/nodes"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// Drive one device of the local adb server directly.
func ExampleNew() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := android.New(ctx, android.ServerAddr(), "emulator-5554")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	size, err := d.ScreenSize(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Tap the middle of the screen; cancelling ctx would abort it at once.
	_ = d.Tap(ctx, device.Point{X: size.Width / 2, Y: size.Height / 2}, 0)
}

// Put every device of the local adb server on a node, and take it off when it leaves.
func ExampleAttach() {
	var node *nodes.Node // from nodes.Start
	ctx := context.Background()
	go func() {
		if err := android.Attach(ctx, node, "", slog.Default()); err != nil {
			slog.Error("no adb server", "err", err)
		}
	}()
}
