package mcp

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
)

// A policy narrowed since a principal took a lease (its tags changed across a gateway restart)
// must not strand the lease until its TTL or an operator's --force: giving a lease back gives
// up rights and gains none. So a principal always sees its own leases in list_leases (with or
// without its serial) and may release them, whatever the device's tags now; every other tool
// still refuses the device, and list_leases of its serial shows only the principal's own lease.

// releaseTool and listLeasesTool are the tools authorize lets name a device outside the
// caller's policy when its principal holds the device's lease (ownLeaseTool).
const (
	releaseTool    = "release_device"
	listLeasesTool = "list_leases"
)

// ownLeaseTool reports whether tool may name a device of an own lease outside the policy.
func ownLeaseTool(tool string) bool { return tool == releaseTool || tool == listLeasesTool }

// ownsLease reports whether the caller's principal holds dev's lease, as the registry shows
// it (the node still checks the handle the release passes).
func (g *Gateway) ownsLease(ctx context.Context, dev broker.DeviceEntry) bool {
	return dev.Holder != "" && g.isCaller(ctx, broker.PrincipalOf(dev.Holder))
}

// isCaller reports whether principal is the caller's, who came with a token (or with no
// policy at all).
func (g *Gateway) isCaller(ctx context.Context, principal string) bool {
	p := g.principal(ctx)
	return p != nil && principal != "" && p.Name == principal
}

// releasedDevice finds the device release_device gives a lease of back, as resolveDevice
// does, but lets the caller's principal give back its own lease of a device its policy no
// longer allows.
func (g *Gateway) releasedDevice(ctx context.Context, serial string) (broker.DeviceEntry, *mcpgo.CallToolResult) {
	if dev, ok := g.farm.Device(serial); ok && g.ownsLease(ctx, dev) {
		return dev, nil
	}
	dev, _, errRes := g.resolveDevice(ctx, deviceArgs{Serial: serial})
	return dev, errRes
}

// leasesSerialRefused checks list_leases' serial as a device tool's: known, usable, of platform
// (nil when it passes). The device of a lease the caller's principal holds passes whatever its
// tags now; the list then shows only that lease (list_leases keeps, of a device outside the
// policy, the caller's own leases).
func (g *Gateway) leasesSerialRefused(ctx context.Context, platform, serial string) *mcpgo.CallToolResult {
	dev, ok := g.farm.Device(serial)
	if !ok || !g.ownsLease(ctx, dev) {
		_, _, errRes := g.resolveDevice(ctx, deviceArgs{Platform: platform, Serial: serial})
		return errRes
	}
	if platform != "" && platform != dev.Platform {
		return g.refuseBadInput(ctx, wrongPlatform(dev, platform))
	}
	return nil
}
