package mcp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A principal's tag longer than a device tag may be (64 bytes, as nodes and the chart refuse
// longer) is refused at load, the error naming the principal and the tag, its length and the
// limit: among many principals and tags the operator finds the one to fix. A tag too long to
// quote in full is quoted by its start.
func TestPolicyRefusesAPrincipalTagLongerThanADeviceTag(t *testing.T) {
	const secret = "secret-token-0123456789"
	long := "pool-" + strings.Repeat("a", maxTagLen-4) // one byte over
	policy := "principals:\n" +
		"  - name: ok\n    token: " + secret + "-ok\n    tags: [pool-a]\n" +
		"  - name: ci-bot\n    token: " + secret + "\n    tags: [pool-b, " + long + "]\n"
	_, err := ParsePolicy([]byte(policy), t.TempDir())
	require.Error(t, err)
	for _, want := range []string{`principal "ci-bot"`, `"` + long + `"`, "65 bytes long", "1 to 64 bytes"} {
		assert.ErrorContains(t, err, want)
	}
	assert.NotContains(t, err.Error(), secret)

	huge := strings.Repeat("h", 10000)
	_, err = ParsePolicy([]byte("principals:\n  - name: a\n    token: "+secret+"\n    tags: ["+huge+"]"), t.TempDir())
	require.Error(t, err)
	assert.ErrorContains(t, err, `tag "`+huge[:shownTagLen]+`…" is 10000 bytes long`)
	assert.Less(t, len(err.Error()), 400, "the error quotes the whole tag")

	// Cut within a character, the quote would end in \xc3 rather than a character.
	accented := "x" + strings.Repeat("é", 100) // byte 80 is the middle of an é
	_, err = ParsePolicy([]byte("principals:\n  - name: a\n    token: "+secret+"\n    tags: ["+accented+"]"), t.TempDir())
	require.Error(t, err)
	assert.ErrorContains(t, err, `tag "x`+strings.Repeat("é", 39)+`…" is 201 bytes long`)
	assert.NotContains(t, err.Error(), `\x`, "the quote cuts a character in half")

	_, err = ParsePolicy([]byte("principals:\n  - name: a\n    token: "+secret+"\n    tags: [\"\"]"), t.TempDir())
	assert.ErrorContains(t, err, `principal "a": tags: an empty tag`)
}
