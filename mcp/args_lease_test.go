package mcp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A lease handle is a secret: one refused was echoed whole ("lease \"\\\"lease_abc…0123\\\"\" is
// not one Corral hands out"); it is shortened as valid ones are, and one copied with its quotes
// or spaces is told to drop them. Task ids are not secrets: a refused one shows up to 40 bytes.
func TestRefusedLeaseHandleIsShortened(t *testing.T) {
	const handle = "lease_abcdefghijklmnopqrstuvwxyz0123"
	for _, v := range []string{`"` + handle + `"`, " " + handle + "\n", "'" + handle + "'", handle + ".x", handle + "é"} {
		err := checkID(argLease, v)
		require.Error(t, err, v)
		assert.NotContains(t, err.Error(), "mnopqrstuvwxyz0123", v)
		assert.Contains(t, err.Error(), "…", v)
		assert.Equal(t, strings.Contains(v, ".x") || strings.Contains(v, "é"), strings.Contains(err.Error(), "is not one Corral hands out"), "%q: %v", v, err)
	}
	err := checkID(argLease, `"`+handle+`"`)
	assert.Contains(t, err.Error(), "is in quotes or spaces: remove them, and give the lease alone")

	err = checkID("task_id", "t_0123456789abcdefghij.x")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `task_id "t_0123456789abcdefghij.x" is not one Corral hands out`)
	assert.NoError(t, checkID(argLease, handle))
}
