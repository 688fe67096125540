package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/corral-farm/corral/broker"
)

// One of a thing is not "1 devices" (drain --status said so of a one-phone node).
func TestDrainTextCountsOneAsOne(t *testing.T) {
	assert.Equal(t, "node n1 takes new work (not draining): 1 device, 1 task running, 1 lease held, 0 queued.",
		drainText(broker.DrainAnswer{Node: "n1", Devices: 1, Running: 1, Leases: 1}))
	assert.Equal(t, "node n1 takes new work (not draining): 2 devices, 0 tasks running, 3 leases held, 1 queued.",
		drainText(broker.DrainAnswer{Node: "n1", Devices: 2, Leases: 3, Queued: 1}))
}
