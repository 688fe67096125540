package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every tool is whole: a unique name, a description, argument and result structs whose tags
// make a schema, timeouts, Run; and DefaultOps serves it.
func TestAllToolsAreWhole(t *testing.T) {
	seen := map[string]bool{}
	ops := DefaultOps()
	for _, tool := range All() {
		t.Run(tool.Name, func(t *testing.T) {
			require.NotEmpty(t, tool.Name)
			assert.False(t, seen[tool.Name], "two tools are called %s", tool.Name)
			seen[tool.Name] = true
			assert.NotEmpty(t, tool.Description)
			require.Equal(t, reflect.Struct, tool.Args.Kind())
			require.Equal(t, reflect.Struct, tool.Result.Kind())
			assert.NotPanics(t, func() { InputSchema(tool.Args) })
			assert.Positive(t, tool.Timeout)
			assert.GreaterOrEqual(t, tool.MaxTimeout, tool.Timeout)
			require.NotNil(t, tool.Run)
			assert.Contains(t, ops, tool.Name)
			if tool.Short.Kind != ShortNone {
				assert.NotEmpty(t, tool.Short.Usage)
			}
		})
	}
}

// The tags make the schema and the checks from one declaration.
func TestArgTagsMakeSchemaAndChecks(t *testing.T) {
	type args struct {
		X     *float64  `json:"x" arg:"required,min=0,max=1" desc:"X" unit:"(relative)" help:"a number 0-1" hint:"use y"`
		N     int64     `json:"n,omitempty" arg:"min=1,max=9"`
		S     string    `json:"s,omitempty" arg:"maxLength=3,enum=ab|cd" pattern:"^[a-z]+$"`
		L     []float64 `json:"l,omitempty" arg:"minItems=2,maxItems=2,itemMin=0,itemMax=1"`
		Plain bool      `json:"plain,omitempty" desc:"On"`
	}
	type two struct {
		A *float64 `json:"a" arg:"required" help:"a number"`
		B *float64 `json:"b" arg:"required" help:"a number"`
		C string   `json:"c" arg:"required"`
	}
	err := DecodeArgs(json.RawMessage(`{"b":1}`), &two{})
	require.Error(t, err)
	assert.Equal(t, "a and c are required", err.(*OpError).Msg, "every missing argument is named at once")
	err = DecodeArgs(json.RawMessage(`{"c":"x"}`), &two{})
	require.Error(t, err)
	assert.Equal(t, "a and b are required: a number", err.(*OpError).Msg)

	props, req := InputSchema(reflect.TypeFor[args]())
	assert.Equal(t, []string{"x"}, req)
	b, err := json.Marshal(props)
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"x": {"type":"number","minimum":0,"maximum":1,"description":"X"},
		"n": {"type":"integer","minimum":1,"maximum":9},
		"s": {"type":"string","maxLength":3,"enum":["ab","cd"],"pattern":"^[a-z]+$"},
		"l": {"type":"array","minItems":2,"maxItems":2,"items":{"type":"number","minimum":0,"maximum":1}},
		"plain": {"type":"boolean","description":"On"}}`, string(b))

	for in, want := range map[string]string{
		`{}`:                         "x is required: a number 0-1",
		`{"x":null}`:                 "x is required: a number 0-1",
		`{"x":2}`:                    "x must be between 0 and 1 (relative), got 2; use y",
		`{"x":0,"n":10}`:             "n must be between 1 and 9, got 10",
		`{"x":0,"s":"abcd"}`:         "s is 4 characters long; at most 3",
		`{"x":0,"s":"北京上海"}`:         "s is 4 characters long; at most 3",
		`{"x":0,"s":"北京"}`:           `s must be ab or cd, got "北京"`, // 2 characters, 6 bytes
		`{"x":0,"s":"zz"}`:           `s must be ab or cd, got "zz"`,
		`{"x":0,"l":[0]}`:            "l must be 2 numbers, got 1",
		`{"x":0,"l":[0,2]}`:          "l[1] must be between 0 and 1, got 2",
		`{"x":0,"s":"ab","l":[]}`:    "l must be 2 numbers, got 0",
		`{"x":0,"s":"ab","l":null}`:  "",
		`{"x":0,"n":0,"plain":true}`: "",
	} {
		err := DecodeArgs(json.RawMessage(in), &args{})
		if want == "" {
			assert.NoError(t, err, in)
			continue
		}
		require.Error(t, err, in)
		assert.Equal(t, want, err.(*OpError).Msg, in)
	}
}

// A sequence step runs the node's own op, configured as it is on its own: the Env its
// DefaultOpsWith made, not an unconfigured copy.
func TestSequenceStepsRunTheNodesOwnOps(t *testing.T) {
	env := newEnv(OpsConfig{AppSources: []string{"apps.example.com"}})
	var got *Env
	tap := env.Ops["tap"]
	env.Ops["tap"] = Op{Name: "tap", Timeout: tap.Timeout, MaxTimeout: tap.MaxTimeout,
		Run: func(_ context.Context, task *Task) (Output, error) {
			got = task.Env
			return Output{Data: MessageResult{Message: "tapped"}}, nil
		}}
	out, err := env.Ops["sequence"].Run(context.Background(), &Task{Driver: newFake(),
		Args: json.RawMessage(`{"steps":[{"tool_name":"tap","arg":[0,0,1,1]}]}`)})
	require.NoError(t, err)
	assert.Equal(t, "ran its 1 step", out.Data.(SequenceResult).Message) // it read "ran all 1 steps"
	require.NotNil(t, got, "the step did not run the node's op")
	assert.Same(t, env, got)
	assert.Equal(t, []string{"apps.example.com"}, got.Config.AppSources)
}
