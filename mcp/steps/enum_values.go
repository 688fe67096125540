package steps

import (
	"maps"

	"github.com/corral-farm/corral/mcp"
)

// enumSpelled returns args with each enum argument of tool in the spelling the tool's schema
// lists, by the rule of whoever answers the tool (mcp.EnumValue: "home" is press_button's HOME,
// " UP " swipe_direction's up, "Android" acquire_device's android): a step the tool takes passes
// the schema's check, as the model's own spelling in an agent task's export does. A value the
// tool does not take is left as it is, for the check to explain; args itself is not changed.
func enumSpelled(tool string, args map[string]any) map[string]any {
	var out map[string]any
	for k, v := range args {
		s, ok := v.(string)
		if !ok {
			continue
		}
		if e, ok := mcp.EnumValue(tool, k, s); ok && e != s {
			if out == nil {
				out = maps.Clone(args)
			}
			out[k] = e
		}
	}
	if out == nil {
		return args
	}
	return out
}
