// Package tools is what a device tool does on a device: the node half of every MCP tool (an Op:
// its arguments, their checks, its deadline and its Run against a device.Driver), and the
// argument and result types the gateway's tool definitions share with it. It imports no
// runtime — neither the actors nor NATS — so the gateway links it without linking a node.
package tools
