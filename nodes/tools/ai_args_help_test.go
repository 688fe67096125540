package tools

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ai_action, ai_query and finished called without their one argument, or with it blank, say
// what to give, as input does ("text is required: the text to type into the focused element").
func TestAIToolsSayWhatTheirArgumentIs(t *testing.T) {
	const prompt = "prompt is required: in words, what to do on the device (ai_action: 'open Settings and turn on Wi-Fi') or what to ask about its screen"
	const content = "content is required: the task's conclusion for the user, in words"
	for _, c := range []struct {
		args func() any
		raw  string
		want string
	}{
		{func() any { return &PromptArgs{} }, `{}`, prompt},
		{func() any { return &PromptArgs{} }, `{"prompt":" "}`, prompt},
		{func() any { return &FinishedArgs{} }, `{}`, content},
		{func() any { return &FinishedArgs{} }, `{"content":""}`, content},
	} {
		err := DecodeArgs([]byte(c.raw), c.args())
		require.Error(t, err, c.raw)
		assert.Contains(t, err.Error(), c.want, c.raw)
	}
}
