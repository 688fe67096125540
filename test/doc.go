// Package test holds Corral's black-box tests: whole farms (real NATS, nodes, simulated
// phones, gateways) driven through real MCP clients, as agents and operators use them.
package test
