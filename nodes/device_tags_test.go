package nodes

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
