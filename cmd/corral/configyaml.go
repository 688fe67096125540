package main

import (
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// maxConfigValues bounds the values a --config file's aliases may expand to: a file of a few
// lines must not make millions (nested aliases double at each step).
const maxConfigValues = 100_000

// configValues reads a --config file: a set of keys (flag names) and their values, each scalar
// as it is written. YAML would read 007 as 7, 1_000 as 1000 and 2026-01-02 as a time, and a
// list's items so too; a flag takes its value as the command line gives it, so tags: 007,010
// and tags: [007, 010] read the same. null (or nothing) is nil; a list is []any and a set of
// keys map[string]any.
func configValues(b []byte) (map[string]any, error) {
	var doc map[string]yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	budget := maxConfigValues
	out := make(map[string]any, len(doc))
	for k, n := range doc {
		v, err := asWritten(&n, &budget)
		if err != nil {
			return nil, fmt.Errorf("key %s: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}

// asWritten is n's value with its scalars as written (configValues), its aliases followed.
func asWritten(n *yaml.Node, budget *int) (any, error) {
	return yamlValue(n, budget, maxConfigValues, func(n *yaml.Node) (any, error) {
		if n.ShortTag() == "!!null" {
			return nil, nil
		}
		return n.Value, nil
	})
}

// yamlValue is n's value, its aliases followed, its scalars as scalar reads them: at most
// *budget values in all, of limit (aliases may expand a small file into many).
func yamlValue(n *yaml.Node, budget *int, limit int, scalar func(*yaml.Node) (any, error)) (any, error) {
	if *budget--; *budget < 0 {
		return nil, fmt.Errorf("more than %d values (aliases expanding?)", limit)
	}
	switch n.Kind {
	case yaml.AliasNode:
		return yamlValue(n.Alias, budget, limit, scalar)
	case yaml.ScalarNode:
		return scalar(n)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, item := range n.Content {
			v, err := yamlValue(item, budget, limit, scalar)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i]
			if key.Kind == yaml.AliasNode {
				key = key.Alias
			}
			if key.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: a key that is a list or a set of keys: write each key as one value", key.Line)
			}
			if _, twice := out[key.Value]; twice {
				return nil, fmt.Errorf("key %s is given twice: give it once", key.Value)
			}
			v, err := yamlValue(n.Content[i+1], budget, limit, scalar)
			if err != nil {
				return nil, err
			}
			out[key.Value] = v
		}
		return out, nil
	}
	return nil, errors.New("no value YAML can hold here")
}

// yamlHint says how to write a value YAML refused for its first character: * begins an alias
// (allowed-origins: *.example.com), & an anchor.
func yamlHint(err error) string {
	msg := err.Error()
	if strings.Contains(msg, "did not find expected alphabetic or numeric character") || strings.Contains(msg, "unknown anchor") {
		return ` (a value that begins with * or & must be quoted: "*.example.com")`
	}
	return ""
}
