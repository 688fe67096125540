package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sort"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/nodes/tools"
)

// FuzzOps throws arbitrary arguments at every op on a simulated phone: an op either succeeds
// or returns an error; it never panics, and bad input is reported as bad input.
func FuzzOps(f *testing.F) {
	ops := tools.DefaultOps()
	names := make([]string, 0, len(ops))
	for n := range ops {
		names = append(names, n)
	}
	sort.Strings(names)
	for i := range names {
		f.Add(uint8(i), []byte(`{"x":0.5,"y":0.5}`))
		f.Add(uint8(i), []byte(`{"text":"héllo \"quoted\" ; rm -rf /"}`))
		f.Add(uint8(i), []byte(`{"direction":"up","duration":0.1}`))
		f.Add(uint8(i), []byte(`{"from_x":0,"from_y":1,"to_x":1,"to_y":0}`))
		f.Add(uint8(i), []byte(`{"seconds":0.001,"milliseconds":1,"button":"HOME","packageName":"com.corral.notes"}`))
		f.Add(uint8(i), []byte(`{"bbox":[0.1,0.2,0.3,0.4],"direction":"up","size":"xxl","speed":"fast"}`))
		f.Add(uint8(i), []byte(`{"steps":[{"tool_name":"tap","arg":[0,0,1,1]},{"tool_name":"swipe","args":{"direction":"up"}}]}`))
		f.Add(uint8(i), []byte(`{"step1":{"tool_name":"send_to_clipboard","arg":"x"},"params":[0.001],"ime":"a/.b","appUrl":"/nonexistent.apk"}`))
	}
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		if !json.Valid(args) {
			return // the gateway answers malformed JSON itself
		}
		op := ops[names[int(which)%len(names)]]
		switch {
		case op.Name == "sleep" || op.Name == "sleep_ms" || op.Name == "sleep_random":
			return // waiting is not interesting to fuzz, and could be long
		case op.Name == "app_install" && bytes.Contains(args, []byte("//")):
			return // no downloads from wherever the fuzzer points
		}
		phone := sim.New("fuzz")
		defer phone.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_, err := op.Run(ctx, &tools.Task{Driver: phone, Args: args, Progress: func(float64, float64, string) {}})
		var oe *tools.OpError
		if err != nil && errors.As(err, &oe) && oe.Msg == "" {
			t.Fatalf("%s: an op error without a message: %v", op.Name, err)
		}
	})
}
