package tools_test

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/corral-farm/corral/nodes/tools"
)

// An argument struct declares each argument once; the schema and the checks both come from it.
func ExampleInputSchema() {
	type PinchArgs struct {
		X     *float64 `json:"x" arg:"required,min=0,max=1" desc:"Centre X (0-1)" unit:"(relative to the screen)"`
		Y     *float64 `json:"y" arg:"required,min=0,max=1" desc:"Centre Y (0-1)" unit:"(relative to the screen)"`
		Scale float64  `json:"scale,omitempty" arg:"min=0.1,max=10" desc:"Zoom factor (default 2)"`
		Speed string   `json:"speed,omitempty" arg:"enum=slow|fast" desc:"Default slow"`
	}
	props, required := tools.InputSchema(reflect.TypeFor[PinchArgs]())
	schema, _ := json.Marshal(props)
	fmt.Println(string(schema))
	fmt.Println(required)

	fmt.Println(tools.DecodeArgs(json.RawMessage(`{"x":0.5,"y":1.5}`), &PinchArgs{}))
	fmt.Println(tools.DecodeArgs(json.RawMessage(`{"scale":2}`), &PinchArgs{}))
	fmt.Println(tools.DecodeArgs(json.RawMessage(`{"x":0.5,"y":0.5,"speed":"warp"}`), &PinchArgs{}))
	// Output:
	// {"scale":{"description":"Zoom factor (default 2)","maximum":10,"minimum":0.1,"type":"number"},"speed":{"description":"Default slow","enum":["slow","fast"],"type":"string"},"x":{"description":"Centre X (0-1)","maximum":1,"minimum":0,"type":"number"},"y":{"description":"Centre Y (0-1)","maximum":1,"minimum":0,"type":"number"}}
	// [x y]
	// y must be between 0 and 1 (relative to the screen), got 1.5
	// x and y are required
	// speed must be slow or fast, got "warp"
}
