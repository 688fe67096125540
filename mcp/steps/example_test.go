package steps_test

import (
	"encoding/json"
	"fmt"

	"github.com/corral-farm/corral/mcp/steps"
)

// An HttpRunner action becomes the tools/call of its method, params and options as arguments.
func ExampleConvert() {
	for _, a := range []steps.MobileAction{
		{Method: "tap_xy", Params: []float64{0.5, 0.3}, Options: map[string]any{"duration": 0.2}},
		{Method: "swipe", Params: "up", Options: map[string]any{"timeout": 5}},
		{Method: "app_launch", Params: "com.corral.notes"},
		{Method: "sleep_random", Params: []float64{1, 2}},
	} {
		req, err := steps.Convert(a)
		if err != nil {
			fmt.Println(err)
			continue
		}
		args, _ := json.Marshal(req.Params.Arguments)
		fmt.Println(req.Params.Name, string(args))
	}
	// Output:
	// tap_xy {"duration":0.2,"x":0.5,"y":0.3}
	// swipe {"direction":"up","timeout_ms":5000}
	// app_launch {"packageName":"com.corral.notes"}
	// sleep_random {"params":[1,2]}
}

// A steps file is YAML or JSON: a list of steps, or {name, serial, platform, steps}.
func ExampleParse() {
	doc, err := steps.Parse([]byte(`
name: login
serial: emulator-5554
steps:
  - {method: app_launch, params: com.example.app}
  - {method: tap_xy, params: [0.5, 0.8], name: sign in, ignore_error: true}
  - {tool: input, arguments: {text: hello}}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range doc.Steps {
		req, _ := s.Request()
		args, _ := json.Marshal(req.Params.Arguments)
		fmt.Printf("%d %s %s ignore_error=%t\n", s.Index, req.Params.Name, args, s.IgnoreError)
	}
	// Output:
	// 1 app_launch {"packageName":"com.example.app"} ignore_error=false
	// 2 tap_xy {"x":0.5,"y":0.8} ignore_error=true
	// 3 input {"text":"hello"} ignore_error=false
}
