// Package tools is what a device tool is and does: one Tool per tool (All lists them), each
// declaring its MCP definition (description, hints, argument and result types, whose tags make
// the schemas and the checks), its deadlines, where else it shows up (profiles, sequence steps,
// the HttpRunner short form) and its Run against a device.Driver. The node serves them as ops
// (DefaultOpsWith); the gateway builds its catalog from them. It imports no runtime — neither
// the actors nor NATS — so the gateway links it without linking a node. See
// docs/adding-a-tool.md.
package tools
