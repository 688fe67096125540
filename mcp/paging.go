package mcp

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
)

// maxSummaryNodes bounds by_node: a farm's node count grows with it, the summary must not.
const maxSummaryNodes = 50

// ListSummary counts what matches a list tool's filters, over all its pages.
type ListSummary struct {
	Total      int            `json:"total" jsonschema:"All pages"`
	ByPlatform map[string]int `json:"by_platform"`
	ByState    map[string]int `json:"by_state"`
	ByNode     map[string]int `json:"by_node" jsonschema:"The 50 largest; the rest in other_nodes"`
	OtherNodes int            `json:"other_nodes,omitempty"`
}

func newSummary() ListSummary {
	return ListSummary{ByPlatform: map[string]int{}, ByState: map[string]int{}, ByNode: map[string]int{}}
}

// add counts one item.
func (s *ListSummary) add(platform, state, node string) {
	s.Total++
	s.ByPlatform[cmp.Or(platform, "unknown")]++
	s.ByState[cmp.Or(state, "unknown")]++
	s.ByNode[node]++
}

// bound keeps the maxSummaryNodes nodes with the most items (ties by name) and counts the
// others' items in OtherNodes.
func (s *ListSummary) bound() {
	if len(s.ByNode) <= maxSummaryNodes {
		return
	}
	nodes := slices.SortedFunc(maps.Keys(s.ByNode), func(a, b string) int {
		return cmp.Or(cmp.Compare(s.ByNode[b], s.ByNode[a]), cmp.Compare(a, b))
	})
	for _, n := range nodes[maxSummaryNodes:] {
		s.OtherNodes += s.ByNode[n]
		delete(s.ByNode, n)
	}
}

// pageAfter returns the items of sorted (ascending by key) whose key comes after after, at
// most limit of them, and whether more follow. Keys only grow from page to page, so however
// the list changes between pages no item comes twice, and an item there all along comes once.
func pageAfter[T any](sorted []T, key func(T) string, after string, limit int) (page []T, more bool) {
	start := 0
	if after != "" {
		start = sort.Search(len(sorted), func(i int) bool { return key(sorted[i]) > after })
	}
	end := min(len(sorted), start+limit)
	return sorted[start:end], end < len(sorted)
}

// fitPage encodes build(n) for the largest n ≤ count whose encoding, mirrored as text, fits in
// MaxResultBytes (n = 1 if even one does not: the gateway's cap then cuts it). build(n) is the
// answer holding the first n items of the page.
func fitPage(count int, build func(n int) any) ([]byte, error) {
	n := count
	for {
		b, err := json.Marshal(build(n))
		if err != nil || 2*len(b) <= MaxResultBytes || n <= 1 {
			return b, err
		}
		n = max(1, min(n-1, n*MaxResultBytes/(2*len(b))))
	}
}

// pageEnd is how a page of a list tool tells of the rest: a cursor to the next page and a note.
type pageEnd struct {
	kind    listKind
	filters [filterPrintLen]byte // the print of the call's filters
	noun    string               // what the list holds: "devices"
	narrow  string               // the filters to name in the note
}

// tail returns the next cursor and the note of a page that shows n of the page's items, the
// last with key last (n < of when the size cap shortened the page), of total items in all; more
// says whether items follow the page. Both are "" on the last page.
func (e pageEnd) tail(last string, n, of, total int, more bool) (next, note string) {
	cut := n < of
	if n == 0 || !(more || cut) {
		return "", ""
	}
	next = cursor{kind: e.kind, filters: e.filters, after: last}.encode()
	note = fmt.Sprintf("This page holds %d of the %d matching %s", n, total, e.noun)
	if cut {
		note += fmt.Sprintf(" (fewer than limit: a result holds at most %d KB)", MaxResultBytes>>10)
	}
	return next, note + ". For the next page call again with cursor set to next_cursor and the same filters; or narrow the list with " + e.narrow + "."
}
