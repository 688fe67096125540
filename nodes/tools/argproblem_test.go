package tools

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Decoding errors are told in the arguments' words, classified by encoding/json's error types.
func TestArgProblem(t *testing.T) {
	type args struct {
		X     *float64    `json:"x"`
		N     int64       `json:"n"`
		Names []string    `json:"names"`
		Off   []int       `json:"offset"`
		Steps []TapXYArgs `json:"steps"`
		On    bool        `json:"on"`
	}
	for _, c := range []struct {
		in, want string
		unknown  bool
	}{
		{`{"x":"a"}`, "x must be a number, got a string", false},
		{`{"n":1.5}`, "n must be a whole number, got a fraction or a number out of range", false},
		{`{"names":"a"}`, "names must be an array of strings, got a string", false},
		{`{"offset":"a"}`, "offset must be an array of whole numbers, got a string", false},
		{`{"steps":{}}`, "steps must be an array of objects {x, y, duration, pre_mark_operation, anti_risk}, got an object", false},
		{`{"steps":[1]}`, "each item of steps must be an object {x, y, duration, pre_mark_operation, anti_risk}, got a number", false},
		{`{"names":["a",2]}`, "each item of names must be a string, got a number", false},
		{`{"offset":[1.5]}`, "each item of offset must be a whole number, got a fraction or a number out of range", false},
		{`{"steps":[{"x":"a"}]}`, "steps.x must be a number, got a string", false},
		{`{"on":"yes"}`, "on must be a boolean, got a string", false},
		{`[1]`, "arguments must be an object {x, n, names, offset, steps, on}, got an array", false},
		{`{"zz":1}`, `unknown argument "zz"`, true},
	} {
		var a args
		msg, unknown, ok := ArgProblem(DecodeArgs([]byte(c.in), &a))
		assert.True(t, ok, c.in)
		assert.Equal(t, c.want, msg, c.in)
		assert.Equal(t, c.unknown, unknown, c.in)
	}
	_, _, ok := ArgProblem(BadInput("x is required"))
	assert.False(t, ok, "an error that is not encoding/json's")
}
