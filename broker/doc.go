// Package broker is Corral's NATS layer: an embedded nats-server with JetStream, connections to
// an existing NATS, every subject name (subjects.go), every payload (wire.go), the KV buckets and
// streams (streams.go), node liveness (liveness.go), and the Client that gateways and the CLI use
// to reach devices (client.go).
package broker
