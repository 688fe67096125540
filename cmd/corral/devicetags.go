package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/corral-farm/corral/nodes"
)

// tags returns --device-tags as a list, each item trimmed and once, refusing an empty item
// (a,,b) and a tag a node cannot give (nodes.CheckDeviceTags), naming the flag and the value.
func (s nodeSettings) tags() ([]string, error) {
	if s.deviceTags == nil || strings.TrimSpace(*s.deviceTags) == "" {
		return nil, nil
	}
	var out []string
	for i, t := range strings.Split(*s.deviceTags, ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			return nil, fmt.Errorf("--device-tags %q: item %d is empty; give tags separated by single commas, e.g. pool-a,lab-2", *s.deviceTags, i+1)
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if err := nodes.CheckDeviceTags(out); err != nil {
		return nil, fmt.Errorf("--device-tags %q: %w", *s.deviceTags, err)
	}
	return out, nil
}
