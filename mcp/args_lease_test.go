package mcp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// A lease handle is a secret, and a malformed one may be a real one mistyped: a refusal quoted
// its first ten characters (broker.ShownHandle), then echoed it whole before that. It quotes
// none of it now, not six characters in a row, and says what shape a handle has and what is
// wrong with this one; one copied with its quotes or spaces is told to drop them. Task ids are
// not secrets: a refused one shows up to 40 bytes.
func TestRefusedLeaseHandleQuotesNoneOfIt(t *testing.T) {
	handle := broker.NewLeaseHandle()
	for _, c := range []struct{ sent, says string }{
		{`"` + handle + `"`, "lease: the handle you passed is in quotes or spaces: remove them, and give the handle alone"},
		{" " + handle + "\n", "in quotes or spaces"},
		{"'" + handle + "'", "in quotes or spaces"},
		{handle + ".x", fmt.Sprintf("character %d is '.'", len(handle)+1)},
		{handle[:20] + "é" + handle[20:], "character 21 is 'é'"},
		{handle[:12] + " " + handle[12:], "character 13 is ' '"},
		{strings.Repeat(handle, 5), fmt.Sprintf("it is %d bytes long", 5*len(handle))},
	} {
		err := checkID(argLease, c.sent)
		require.Error(t, err, c.sent)
		msg := err.Error()
		assert.Contains(t, msg, c.says, c.sent)
		if !strings.Contains(c.says, "quotes") {
			assert.Contains(t, msg, "1 to 128 letters, digits, '_' and '-'", c.sent)
		}
		sent := []rune(c.sent)
		for i := 0; i+6 <= len(sent); i++ {
			if w := string(sent[i : i+6]); strings.Contains(msg, w) {
				t.Errorf("the refusal of %q quotes %q of it: %s", c.sent, w, msg)
			}
		}
	}

	err := checkID("task_id", "t_0123456789abcdefghij.x")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `task_id "t_0123456789abcdefghij.x" is not one Corral hands out`)
	assert.NoError(t, checkID(argLease, handle))
}
