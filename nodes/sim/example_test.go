package sim_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
)

// A test script drives a simulated phone as it would a real one: it reads the UI hierarchy,
// taps what it finds and types.
func Example() {
	ctx := context.Background()
	p := sim.New("SIM-0001")
	defer p.Close()

	// The home screen's Notes icon sits at [270,700][540,1030]; tap its centre.
	_ = p.Tap(ctx, device.Point{X: 405, Y: 865}, 0)
	_ = p.InputText(ctx, "hello")
	src, _ := p.Source(ctx)
	fmt.Println(strings.Contains(src, `text="hello" resource-id="com.corral.notes:id/note"`))
	fmt.Println(strings.Join(p.InputLog(), "\n"))
	// Output:
	// true
	// tap 405 865 hold=0s
	// text "hello"
}
