package mcp

import (
	"errors"
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
	if err == nil && f > maxTimeoutMS {
		return 0, aboveDayError{ms: f}
	}
	if err == nil {
		f, err = number(argTimeoutMS, v, 1, maxTimeoutMS, tools.FormatMillis)
	}
	return int64(f), err
}

// aboveDayError is a timeout_ms above any tool's cap (maxTimeoutMS): withToolCap names the
// called tool's, as its node does for one between that cap and a day.
type aboveDayError struct{ ms float64 }

func (e aboveDayError) Error() string {
	return fmt.Sprintf("%s must be between %s and %s, got %s", argTimeoutMS, tools.FormatMillis(1), tools.FormatMillis(maxTimeoutMS), tools.FormatNumber(e.ms))
}

// withToolCap words a timeout_ms above a day as the node words one above tool's cap, so that
// 99999999999 and 7200000 are told the same limit.
func withToolCap(tool string, err error) error {
	var above aboveDayError
	t, ok := tools.Lookup(tool)
	if !errors.As(err, &above) || !ok || t.MaxTimeout <= 0 {
		return err
	}
	return fmt.Errorf("%s %s is above %s's cap of %d ms; ask for less", argTimeoutMS, tools.FormatNumber(above.ms), tool, t.MaxTimeout.Milliseconds())
}
