package actors

import (
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// Restart policy of device actors, in Erlang's words: one-for-one, permanent children,
// restarted after an exponential back-off (100 ms × failures within 30 s, plus jitter).
const (
	restartWindow  = 30 * time.Second
	initialBackoff = 100 * time.Millisecond
)

// newDeviceSupervisor restarts a failed device actor alone, with back-off, and counts it.
func newDeviceSupervisor(m *Metrics, node string) actor.SupervisorStrategy {
	return &countingStrategy{inner: actor.NewExponentialBackoffStrategy(restartWindow, initialBackoff), metrics: m, node: node, kind: "device"}
}

// NodeSupervisor is the root of a node's actor tree. It starts the scheduler and restarts it
// should it ever fail (it must not: it holds every lease of the node).
type NodeSupervisor struct {
	scheduler *actor.Props
	started   chan *actor.PID
}

// NewNodeSupervisorProps returns the props of a node supervisor and a channel that yields
// the scheduler's PID once it runs.
func NewNodeSupervisorProps(scheduler *actor.Props, m *Metrics, node string) (*actor.Props, <-chan *actor.PID) {
	started := make(chan *actor.PID, 1)
	props := actor.PropsFromProducer(func() actor.Actor {
		return &NodeSupervisor{scheduler: scheduler, started: started}
	}, actor.WithSupervisor(&countingStrategy{inner: actor.NewOneForOneStrategy(10, time.Minute, actor.DefaultDecider), metrics: m, node: node, kind: "scheduler"}))
	return props, started
}

// Receive starts the scheduler.
func (n *NodeSupervisor) Receive(ctx actor.Context) {
	if _, ok := ctx.Message().(*actor.Started); ok {
		pid := ctx.Spawn(n.scheduler)
		select {
		case n.started <- pid:
		default:
		}
	}
}

// countingStrategy counts restarts of a kind of actor before delegating.
type countingStrategy struct {
	inner   actor.SupervisorStrategy
	metrics *Metrics
	node    string
	kind    string
}

// HandleFailure counts and delegates.
func (c *countingStrategy) HandleFailure(sys *actor.ActorSystem, sup actor.Supervisor, child *actor.PID, rs *actor.RestartStatistics, reason, msg any) {
	c.metrics.restart(c.node, c.kind)
	c.inner.HandleFailure(sys, sup, child, rs, reason, msg)
}
