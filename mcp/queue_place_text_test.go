package mcp

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/corral-farm/corral/broker"
)

// A waiter is told its place only when the entry lists it: a registry that has not caught up,
// a waiter past the listed first ones, or an older node's entry without a queue say nothing.
func TestPlaceTextOnlyWhenListed(t *testing.T) {
	d := broker.DeviceEntry{Queue: []string{"t_a", "t_b", "t_c"}, Queued: 60}
	assert.Equal(t, " (1st in line, 60 waiting)", placeText(d, "t_a"))
	assert.Equal(t, " (3rd in line, 60 waiting)", placeText(d, "t_c"))
	assert.Empty(t, placeText(d, "t_z"), "not listed")
	assert.Empty(t, placeText(d, ""), "no id")
	assert.Empty(t, placeText(broker.DeviceEntry{}, "t_a"), "an older node's entry")
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 22: "22nd", 50: "50th", 111: "111th", 101: "101st"} {
		assert.Equal(t, want, ordinal(n))
	}
}
