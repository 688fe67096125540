package mcp

import (
	"fmt"
	"math"

	"github.com/corral-farm/corral/nodes/tools"
)

// timeoutArg reads a device tool's timeout_ms: a whole number of milliseconds (the schema's
// integer; 1.5 used to pass as 1) from 1 to maxTimeoutMS. Null is not given (0: the tool's
// default), as null is for wait_seconds, platform, serial and lease beside it, and for every
// argument a tool decodes itself (encoding/json leaves the field unset), acquire_device's
// wait_seconds included.
func timeoutArg(v any) (int64, error) {
	if v == nil {
		return 0, nil
	}
	f, err := number(argTimeoutMS, v, -math.MaxFloat64, math.MaxFloat64, tools.FormatMillis)
	if err == nil && f != math.Trunc(f) {
		err = fmt.Errorf("%s must be a whole number of milliseconds, got %s", argTimeoutMS, tools.FormatNumber(f))
	}
	if err == nil {
		f, err = number(argTimeoutMS, v, 1, maxTimeoutMS, tools.FormatMillis)
	}
	return int64(f), err
}
