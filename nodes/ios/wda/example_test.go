package wda_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/corral-farm/corral/nodes/ios/wda"
	"github.com/corral-farm/corral/nodes/ios/wdasim"
	"github.com/corral-farm/corral/nodes/sim"
)

// A client of a simulated iPhone SE: a 750x1334-pixel phone at scale 2 is 375x667 points.
func Example() {
	phone := sim.New("example", sim.WithSize(750, 1334))
	hs := httptest.NewServer(wdasim.New(phone, 2))
	defer hs.Close()
	c := wda.New(hs.URL, hs.Client())
	ctx := context.Background()

	w, h, _ := c.WindowSize(ctx)
	fmt.Println("points:", w, h)
	_ = c.Launch(ctx, "com.corral.notes")
	_ = c.Keys(ctx, "hello")
	fmt.Println("note:", phone.Note())
	_ = c.Tap(ctx, 100, 200)
	log := phone.InputLog()
	fmt.Println("phone:", log[len(log)-1])
	// Output:
	// points: 375 667
	// note: hello
	// phone: tap 200 400 hold=0s
}
