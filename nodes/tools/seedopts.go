package tools

// HttpRunner adds its general action options (its seed's 通用参数 → 行为参数: anti_risk,
// ignore_NotFoundError, regex, pre_mark_operation, max_retry_times, index) to the arguments of
// whatever tool a step calls (extractActionOptionsToArguments), so a converted step carries them
// where they mean nothing: max_retry_times on tap_xy. Every tool of the httprunner profile takes
// them. A tool that uses one declares it as its own argument, in its schema, which hides the
// embedded one (jsonFields); the others are taken, type-checked, left out of the schemas
// (tools/list is paid for in every agent's context) and ignored (docs/tools.md).

// seedOptions are the general options an action tool takes with its Behaviour and ignores
// unless it declares them itself (or reads them, as the swipe_to_tap tools read index).
type seedOptions struct {
	IgnoreNotFoundError bool `json:"ignore_NotFoundError,omitempty" arg:"unlisted"`
	Regex               bool `json:"regex,omitempty" arg:"unlisted"`
	MaxRetryTimes       int  `json:"max_retry_times,omitempty" arg:"unlisted,min=0,max=50"`
	Index               int  `json:"index,omitempty" arg:"unlisted,min=-100,max=100" desc:"Which match: 0 first, -1 last"`
}

// SeedOptions are all six general options, taken and ignored by the httprunner tools that only
// look or wait (screenshot, sleep, ...): nothing there is found, retried or touched.
type SeedOptions struct {
	PreMarkOperation bool `json:"pre_mark_operation,omitempty" arg:"unlisted"`
	AntiRisk         bool `json:"anti_risk,omitempty" arg:"unlisted"`
	seedOptions
}

// TakesUnlisted reports whether the tool named takes arg though its input schema leaves it
// out (HttpRunner's general options): a step checked against the schema alone
// (mcp/steps) must not refuse it.
func TakesUnlisted(tool, arg string) bool {
	t, ok := Lookup(tool)
	if !ok {
		return false
	}
	for _, f := range argFields(t.Args) {
		if f.name == arg {
			return f.unlisted
		}
	}
	return false
}
