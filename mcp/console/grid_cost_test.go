package console

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// BenchmarkGridBody is what a long poll of the grid does at each look (every 50 ms while it
// waits): build the grid of 10,000 devices and encode it.
func BenchmarkGridBody(b *testing.B) {
	farm := &fakeFarm{}
	for i := range 10000 {
		node := fmt.Sprintf("n%d", i%4+1)
		farm.devices = append(farm.devices, broker.DeviceEntry{Serial: fmt.Sprintf("%s-p%d", node, i), Platform: "android", Model: "Pixel 8",
			Node: node, State: broker.StateOnline, Tags: []string{"sim", "lab"}, Updated: time.Now()})
	}
	c := New(Config{Farm: farm})
	ctx := context.Background()
	b.Run("grid", func(b *testing.B) {
		for b.Loop() {
			c.grid(ctx, filter{})
		}
	})
	b.Run("body", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := c.gridBody(ctx, filter{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
