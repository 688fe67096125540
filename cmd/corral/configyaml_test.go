package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A --config file's aliases are followed, and a few lines of nested aliases that would expand
// to millions of values are refused rather than expanded.
func TestConfigValuesAliases(t *testing.T) {
	v, err := configValues([]byte("tools: &t [tap_xy, take_screenshot]\nsites: &s paris\nhub: *s\n"))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"tools": []any{"tap_xy", "take_screenshot"}, "sites": "paris", "hub": "paris"}, v)

	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 8; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	_, err = configValues([]byte(b.String()))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "more than 100000 values")
}

// configValues never panics, and what it reads holds only what setFromFile takes: nil, text,
// lists and sets of keys of those.
func FuzzConfigValues(f *testing.F) {
	for _, seed := range []string{"", "sites: a,b", "tools: [tap_xy, 007]", "site-nodes: {a: [n1], b: n2}", "a: &x [1]\nb: *x",
		"x: ~", "- a", "a: {b: {c: [d, {e: f}]}}", "a: !!binary aGk=", "<<: {a: b}", "? [a]\n: b"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := configValues([]byte(s))
		if err != nil {
			return
		}
		var check func(any)
		check = func(v any) {
			switch v := v.(type) {
			case nil, string:
			case []any:
				for _, item := range v {
					check(item)
				}
			case map[string]any:
				for _, item := range v {
					check(item)
				}
			default:
				t.Fatalf("%q read a %T", s, v)
			}
		}
		for _, item := range v {
			check(item)
		}
	})
}
