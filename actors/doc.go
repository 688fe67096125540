// Package actors holds the actor types of an edge node: the node supervisor, the scheduler
// that owns every lease and queue of the node's devices, and one device actor per device that
// runs tasks off its mailbox. README.md draws how a task flows through them.
//
// Actors never block on device I/O: a device actor runs each task in a worker goroutine and
// learns the outcome by message, so abort and status stay responsive.
package actors
