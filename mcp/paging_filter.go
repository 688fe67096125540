package mcp

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
)

// Pages of the list tools: a page holds at most limit items (DefaultPageLimit if not given, at
// most MaxPageLimit), and never more than fit in MaxResultBytes.
const (
	DefaultPageLimit = 50
	MaxPageLimit     = 100
)

// deviceFilter is what the list tools filter devices by: every given field must match.
type deviceFilter struct {
	Platform string   `json:"platform,omitempty"`
	State    string   `json:"state,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	Model    string   `json:"model,omitempty"`
	Node     string   `json:"node,omitempty"`
}

// pageArgs choose a page of a list tool. Limit is the page size Check settled: the one given,
// else DefaultPageLimit.
type pageArgs struct {
	Given  *int   `json:"limit,omitempty"`
	Cursor string `json:"cursor,omitempty"`
	Limit  int    `json:"-"`
}

// deviceFilterParams are the list tools' filter arguments (terse: tools/list is paid for in
// every agent's context; the lengths are checked by Check).
func deviceFilterParams() []mcpgo.ToolOption {
	return []mcpgo.ToolOption{
		mcpgo.WithString(argPlatform, mcpgo.Description("android, ios, web or arm")),
		mcpgo.WithString("state", mcpgo.Enum(broker.States...)),
		mcpgo.WithArray("tags", mcpgo.WithStringItems(), mcpgo.Description("All of these")),
		mcpgo.WithString("model", mcpgo.Description("Any case")),
		mcpgo.WithString("node", mcpgo.Description("Node id")),
	}
}

// pageParams are the list tools' paging arguments.
func pageParams() []mcpgo.ToolOption {
	return []mcpgo.ToolOption{
		mcpgo.WithInteger("limit", mcpgo.Min(1), mcpgo.Max(MaxPageLimit), mcpgo.Description(fmt.Sprintf("Page size, default %d", DefaultPageLimit))),
		mcpgo.WithString("cursor", mcpgo.Description("next_cursor of the last page")),
	}
}

// Check validates the filters.
func (f *deviceFilter) Check() error {
	for _, a := range []struct{ name, v string }{{argPlatform, f.Platform}, {"model", f.Model}, {"node", f.Node}} {
		if len(a.v) > maxSerialLen {
			return fmt.Errorf("%s is %d bytes long; at most %d", a.name, len(a.v), maxSerialLen)
		}
	}
	f.Platform = platformValue(f.Platform)
	if st, ok := stateValue(f.State); ok {
		f.State = st
	} else if f.State != "" {
		return fmt.Errorf("state %q is none of the device states: %s", shorten(f.State, 40), strings.Join(broker.States, ", "))
	}
	if len(f.Tags) > maxTags {
		return fmt.Errorf("tags has %d entries; at most %d", len(f.Tags), maxTags)
	}
	for _, t := range f.Tags {
		if t == "" || len(t) > maxTagLen {
			return fmt.Errorf("each tag must be 1 to %d bytes long", maxTagLen)
		}
	}
	return nil
}

// CheckDeviceFilter refuses, in list_available_devices' and list_leases' words, filters they
// would refuse: the CLI checks its flags with it, so that it refuses them before any call, as
// it refuses its other bad flag values.
func CheckDeviceFilter(platform, state string, tags []string, model, node string) error {
	f := deviceFilter{Platform: platform, State: state, Tags: tags, Model: model, Node: node}
	return f.Check()
}

// matches reports whether d has every property the filter asks for.
func (f *deviceFilter) matches(d broker.DeviceEntry) bool {
	return (f.Platform == "" || f.Platform == d.Platform) &&
		(f.State == "" || f.State == d.State) &&
		(f.Model == "" || strings.EqualFold(f.Model, d.Model)) &&
		(f.Node == "" || f.Node == d.Node) &&
		!slices.ContainsFunc(f.Tags, func(t string) bool { return !slices.Contains(d.Tags, t) })
}

// print is the fingerprint of the filters a cursor carries, extra being the list's own filters:
// the same filters in any order give the same print.
func (f *deviceFilter) print(extra ...string) [filterPrintLen]byte {
	tags := slices.Sorted(slices.Values(f.Tags))
	fields := append([]string{f.Platform, f.State, strings.Join(slices.Compact(tags), "\x01"), strings.ToLower(f.Model), f.Node}, extra...)
	sum := sha256.Sum256([]byte(strings.Join(fields, "\x00")))
	var p [filterPrintLen]byte
	copy(p[:], sum[:])
	return p
}

// Check validates the page arguments. A limit of 0 is refused as the schema (minimum 1) and
// docs/tools.md have it, and as corral tasks --limit 0 is: a page of nothing is no page.
// Leaving limit out (or null) takes the default.
func (p *pageArgs) Check() error {
	p.Limit = DefaultPageLimit
	if p.Given == nil {
		return nil
	}
	if *p.Given < 1 || *p.Given > MaxPageLimit {
		return fmt.Errorf("limit must be 1 to %d (default %d), got %d; page through more with cursor", MaxPageLimit, DefaultPageLimit, *p.Given)
	}
	p.Limit = *p.Given
	return nil
}

// after is where the page starts: after the cursor's key, or at the first item.
func (p *pageArgs) after(kind listKind, filters [filterPrintLen]byte) (string, error) {
	if p.Cursor == "" {
		return "", nil
	}
	c, err := decodeCursor(p.Cursor, kind, filters)
	return c.after, err
}
