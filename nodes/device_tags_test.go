package nodes

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/corral-farm/corral/broker"
)

// A node's tags follow its driver's, each once, and leave the driver's own slice as it was:
// a driver that keeps its tags with room to spare (web's) must not see the node's appear in
// them, nor one device's written over by the next's.
func TestWithNodeTagsLeavesTheDriversTags(t *testing.T) {
	driver := make([]string, 1, 4)
	driver[0] = "web"
	got := withNodeTags(driver, []string{"pool-a", "web", "lab-2"})
	assert.Equal(t, []string{"web", "pool-a", "lab-2"}, got)
	assert.Equal(t, []string{"web"}, driver)
	assert.Equal(t, []string{"web", "", "", ""}, driver[:4], "the node's tags were written into the driver's array")
	assert.Equal(t, []string{"sim"}, withNodeTags([]string{"sim"}, nil), "no node tags: the driver's")
	assert.Equal(t, []string{"pool-a"}, withNodeTags(nil, []string{"pool-a"}), "a driver without tags")
}

// An entry of the node's last run keeps the drivers' own tags it carries and takes the node's
// of now in place of the others, which were the node's then.
func TestWithTagsNowKeepsTheDriversTagsAndTakesTheNodes(t *testing.T) {
	e, changed := withTagsNow(broker.DeviceEntry{Tags: []string{"sim", "pool-a", "web"}}, []string{"pool-b"})
	assert.True(t, changed)
	assert.Equal(t, []string{"sim", "web", "pool-b"}, e.Tags)
	e, changed = withTagsNow(broker.DeviceEntry{Tags: []string{"pool-b"}}, []string{"pool-b"})
	assert.False(t, changed, "the same tags: nothing to write")
	assert.Equal(t, []string{"pool-b"}, e.Tags)
	_, changed = withTagsNow(broker.DeviceEntry{}, nil)
	assert.False(t, changed, "no tags then or now")
}
