package model

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	openai "github.com/sashabaranov/go-openai"
)

// callAssembler puts streamed tool-call deltas back together. Servers send a call's ID and
// name in its first delta and its arguments in pieces after, all tagged with the call's
// index; a few send whole calls without an index, so an untagged delta with a new ID starts a
// new call and one without an ID continues the last.
type callAssembler struct {
	calls []*partialCall
}

type partialCall struct {
	index    int
	id, name string
	args     []byte
}

func (a *callAssembler) add(d openai.ToolCall) {
	c := a.find(d)
	// ID and name are whole in the delta that has them; some servers repeat them later.
	if c.id == "" {
		c.id = d.ID
	}
	if c.name == "" {
		c.name = d.Function.Name
	}
	c.args = append(c.args, d.Function.Arguments...)
}

func (a *callAssembler) find(d openai.ToolCall) *partialCall {
	if d.Index != nil {
		for _, c := range a.calls {
			if c.index == *d.Index {
				return c
			}
		}
		return a.start(*d.Index)
	}
	for _, c := range a.calls {
		if d.ID != "" && c.id == d.ID {
			return c
		}
	}
	if d.ID == "" && len(a.calls) > 0 {
		return a.calls[len(a.calls)-1]
	}
	next := 0
	for _, c := range a.calls {
		next = max(next, c.index+1)
	}
	return a.start(next)
}

func (a *callAssembler) start(index int) *partialCall {
	c := &partialCall{index: index}
	a.calls = append(a.calls, c)
	return c
}

// done returns the calls in index order.
func (a *callAssembler) done() []ToolCall {
	calls := slices.Clone(a.calls)
	slices.SortStableFunc(calls, func(x, y *partialCall) int { return cmp.Compare(x.index, y.index) })
	var out []ToolCall
	for i, c := range calls {
		out = append(out, toolCall(i, c.id, c.name, string(c.args)))
	}
	return out
}

// toolCall normalises one call: a server that sends no ID still needs one for the tool
// message that answers it, and no arguments means an empty object.
func toolCall(i int, id, name, args string) ToolCall {
	if id == "" {
		id = fmt.Sprintf("call_%d", i)
	}
	if args == "" {
		args = "{}"
	}
	return ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}
