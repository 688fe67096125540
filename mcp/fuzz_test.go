package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzToolArguments throws arbitrary JSON objects as arguments at every tool of the catalog
// through a real MCP client. Every call must come back as a result, success or isError, never
// a panic or a protocol error; successes must match the tool's output schema; and whatever the
// gateway lets through, the node's op must accept (see miniNode).
func FuzzToolArguments(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"serial":"emulator-5554","x":0.5,"y":0.5}`,
		`{"serial":"emulator-5554","x":0,"y":2399,"duration":60}`,
		`{"serial":"emulator-5554","direction":"up","duration":0.5,"press_duration":0.1}`,
		`{"serial":"emulator-5554","from_x":0,"from_y":1,"to_x":1,"to_y":0,"duration":1000}`,
		`{"serial":"emulator-5554","text":"héllo","button":"home","packageName":"com.x"}`,
		`{"serial":"emulator-5554","seconds":0.001,"milliseconds":1}`,
		`{"serial":"android-busy","lease":"lease_x","wait_seconds":0,"timeout_ms":1000}`,
		`{"platform":"android","model":"Pixel 7","tags":["lab"],"wait_seconds":0.01,"ttl_seconds":5}`,
		`{"task_id":"t_abc","taskId":"t_abc","all":true}`,
		`{"serial":null,"x":null,"text":null,"tags":null}`,
		`{"x":"1","y":[],"serial":{},"direction":7,"tags":[1,2]}`,
		`{"X":0.5,"Y":0.5,"Serial":"emulator-5554"}`,
		`{"serial":"emulator-5554","x":1e308,"y":-1e308,"seconds":1e20,"milliseconds":-9007199254740993}`,
		`{"serial":"emulator-5554","bbox":[0.1,0.2,0.3,0.4],"direction":"down","size":"s","speed":"slow"}`,
		`{"serial":"emulator-5554","bbox":[0.3,0.2,0.1,0.4],"size":"huge","params":[2,1]}`,
		`{"serial":"emulator-5554","steps":[{"tool_name":"tap","arg":[0,0,1,1]},{"tool_name":"go_back"}]}`,
		`{"serial":"emulator-5554","step1":{"tool_name":"swipe","arg":{"bbox":[0,0,1,1],"direction":"up"}},"step2":null}`,
		`{"serial":"emulator-5554","steps":[{"tool_name":"tap_abs_xy","args":{"x":5000,"y":1}}]}`,
		`{"serial":"emulator-5554","params":[0.001,0.002,1],"ime":"com.android.adbkeyboard/.AdbIME","text":"x"}`,
		`{"serial":"emulator-5554","appUrl":"/definitely/not/here.apk","packageName":"com.x"}`,
	} {
		f.Add([]byte(seed))
	}
	farm := newFakeFarm(f)
	cl := newTestClient(f, farm)
	tools := catalog()
	f.Fuzz(func(t *testing.T, data []byte) {
		var args map[string]any
		if err := json.Unmarshal(data, &args); err != nil || args == nil {
			return
		}
		farm.setTB(t)
		defer farm.setTB(f)
		for _, d := range tools {
			name := d.tool.Name
			res := call(t, cl, name, args)
			if res.IsError {
				if resultText(res) == "" {
					t.Errorf("%s %s: isError without a message", name, data)
				}
				continue
			}
			if res.StructuredContent == nil {
				t.Errorf("%s %s: success without structured content", name, data)
				continue
			}
			if err := validateOutput(name, res.StructuredContent); err != nil {
				t.Errorf("%s %s: result does not match the output schema: %v", name, data, err)
			}
		}
	})
}

// FuzzMayOverflow: the quick scan that lets most calls skip hugeNumbers' decoding never
// misses a number outOfRange would refuse.
func FuzzMayOverflow(f *testing.F) {
	for _, s := range []string{`{"x":1e400}`, `{"x":-1E+309}`, `{"x":1.5,"serial":"e1"}`, `{"x":` + strings.Repeat("9", 320) + `}`, `{"a":[1,2e3]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if where, n, ok := outOfRange(body); ok && !mayOverflow(body) {
			t.Errorf("%s = %s is out of range, but the scan let %q through", where, n, body)
		}
	})
}
