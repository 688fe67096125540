// Package nodes is the edge node runtime: it discovers devices, gives each one a supervised
// actor, serves the node's NATS endpoints and keeps the registry current. Device drivers plug in
// behind the contract of package device; the ops a node runs on them are in package tools.
package nodes
