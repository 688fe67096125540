package mcp

import (
	"strings"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// An enum argument of a tool the gateway answers itself (platform, a list's state) takes its
// values as a device tool's tag enum does: without case or surrounding space ("Android" is
// android, " ONLINE " online). The rule is here once: the gateway's checks put the value in the
// listed spelling with it, and `corral run` (mcp/steps) checks a step by it (EnumValue), so a
// step is refused before it runs only if the gateway would refuse it too.

// EnumValue returns s, a value of the argument arg of the tool named, in the spelling the
// tool's schema lists, and whether the tool takes s, by the rule of whoever answers the tool: a
// device tool's own (tools.EnumValue: "home" is press_button's HOME), else the gateway's
// (platformValue, stateValue). False when arg is no enum argument of the tool's.
func EnumValue(tool, arg, s string) (string, bool) {
	if _, ok := tools.Lookup(tool); ok {
		return tools.EnumValue(tool, arg, s)
	}
	switch arg {
	case argPlatform:
		return platformValue(s), true
	case argState:
		return stateValue(s)
	}
	return "", false
}

// argState is the device state the list tools filter by.
const argState = "state"

// platformValue is a platform as the farm spells it: lower case, without surrounding space.
// Any string is a platform (one no device has matches none); the schema lists the gateway's
// platforms when it was given them (Options.Platforms).
func platformValue(s string) string {
	return strings.ToLower(strings.TrimSpace(s))
}

// stateValue is s as the device state it names (broker.States), and whether it names one.
func stateValue(s string) (string, bool) {
	s = strings.TrimSpace(s)
	for _, st := range broker.States {
		if strings.EqualFold(st, s) {
			return st, true
		}
	}
	return "", false
}
