package main

import (
	"errors"
	"fmt"
	"strings"
)

// A comma-list flag takes one value that lists several, a,b (--sites, --tools,
// --allowed-origins, --nats-url, ...). A --config file may write it as that text or as a YAML
// list, [a, b]: the same values either way (setFromFile joins the list's items with commas).

// commaList defines a string flag whose value is a comma-separated list.
func (f *flags) commaList(name, value, usage string) *string {
	p := f.String(name, value, usage)
	f.markCommaList(name)
	return p
}

// markCommaList marks flags defined elsewhere (a platform's, such as --web-allow) as
// comma-lists; a name the command does not have is skipped.
func (f *flags) markCommaList(names ...string) {
	if f.commaLists == nil {
		f.commaLists = map[string]bool{}
	}
	for _, name := range names {
		if f.Lookup(name) != nil {
			f.commaLists[name] = true
		}
	}
}

// joinCommaList is the command-line value of a comma-list flag that a --config file gave as
// a YAML list: its items, each one value, joined with commas. An item that is not one value,
// or is empty, is refused by its number.
func joinCommaList(items []any) (string, error) {
	if len(items) == 0 {
		return "", errors.New("an empty list: give an item, or leave the key out")
	}
	texts := make([]string, 0, len(items))
	for i, item := range items {
		s, err := scalarText(item)
		if err == nil && strings.TrimSpace(s) == "" {
			err = errors.New("empty: write a value or leave the item out")
		}
		if err != nil {
			return "", fmt.Errorf("item %d: %w", i+1, err)
		}
		texts = append(texts, s)
	}
	return strings.Join(texts, ","), nil
}
