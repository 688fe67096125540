package tools

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A key that an object inside the arguments does not take is told with the object it is in
// and what that object takes, not as an argument of the tool; a key of the arguments
// themselves stays an unknown argument (the gateway adds what the tool takes).
func TestUnknownKeyNamesItsObject(t *testing.T) {
	for _, c := range []struct {
		in, want string
		unknown  bool
	}{
		{`{"steps":[{"tool_name":"tap_xy","args":{"x":0.5,"y":0.5},"bogus":1}]}`,
			`unknown key "bogus" in steps[0]; steps[0] takes: tool_name, args, arg`, false},
		{`{"steps":[{"tool_name":"home"},{"tool_name":"tap_xy","Bogus":1}]}`,
			`unknown key "Bogus" in steps[1]; steps[1] takes: tool_name, args, arg`, false},
		{`{"step1":{"tool_name":"home","bogus":1}}`, `unknown key "bogus" in step1; step1 takes: tool_name, args, arg`, false},
		{`{"STEPS":[{"TOOL_NAME":"home","bogus":1}]}`, `unknown key "bogus" in steps[0]; steps[0] takes: tool_name, args, arg`, false},
		{`{"steps":[{"tool_name":"home"}],"bogus":1}`, `unknown argument "bogus"`, true},
	} {
		var a SequenceArgs
		msg, unknown, ok := ArgProblem(DecodeArgs([]byte(c.in), &a))
		assert.True(t, ok, c.in)
		assert.Equal(t, c.want, msg, c.in)
		assert.Equal(t, c.unknown, unknown, c.in)
	}
}
