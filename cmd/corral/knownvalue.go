package main

import (
	"fmt"
	"slices"
	"strings"
)

// A filter flag (--platform, --tool, --outcome) given a value nothing has would match nothing
// and list nothing, as if the farm were empty: such a value is refused before any call.

// knownValue refuses v, the value of --flag, when it is not "" (no filter) and none of names,
// as a usage error (exit 2) naming the nearest name; takes says what the flag takes.
func knownValue(flag, v string, names []string, takes string) error {
	if v == "" || slices.Contains(names, v) {
		return nil
	}
	if hint := didYouMean(v, names); hint != "" {
		return badValue(fmt.Errorf("--%s %q%s (%s)", flag, v, hint, takes))
	}
	return badValue(fmt.Errorf("--%s %q: %s", flag, v, takes))
}

// knownPlatform refuses a --platform no platform of this corral has; any case is taken, as
// the gateway takes it.
func knownPlatform(v string) error {
	names := platformNames()
	return knownValue("platform", strings.ToLower(v), names, "use one of "+strings.Join(names, ", "))
}

// platformNames are the names of platforms().
func platformNames() []string {
	var names []string
	for _, p := range platforms() {
		names = append(names, p.Name)
	}
	return names
}

// knownTool refuses a --tool no tool of this corral (its tools/list, read without a gateway)
// has. The catalog failing to build refuses nothing: the filter then goes as given.
func knownTool(v string) error {
	if v == "" {
		return nil
	}
	cat, err := localCatalog()
	if err != nil {
		return nil
	}
	return knownValue("tool", v, cat.Names(), "no tool is named so; docs/tools.md lists them")
}
