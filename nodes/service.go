package nodes

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/buildinfo"
)

// serve registers the node's micro service: corral.v1.node.<id>.{task,acquire,release,abort,leases,drain,watch}.
// Handlers only decode and hand the request to the scheduler; answers are sent when the
// scheduler decides, so a long task never holds up the endpoint. Only gateways and admins may
// send requests; what a JetStream consumer delivers there is dropped (jsguard).
func (n *Node) serve() error {
	svc, err := micro.AddService(n.cfg.NC, micro.Config{
		Name:        broker.NodeService,
		Version:     buildinfo.Version(),
		Description: "Corral edge node " + n.cfg.ID + ": runs tool calls on its devices",
		Metadata:    map[string]string{"node": n.cfg.ID, "boot": n.boot},
	})
	if err != nil {
		return fmt.Errorf("node %s: add micro service: %w", n.cfg.ID, err)
	}
	n.svc = svc
	g := svc.AddGroup(fmt.Sprintf(broker.NodeGroupT, n.cfg.ID), micro.WithGroupQueueGroupDisabled())
	root, sched := n.system.Root, n.sched
	endpoints := map[string]micro.HandlerFunc{
		broker.EndpointTask: func(r micro.Request) {
			var req broker.TaskRequest
			if !decode(r, &req) {
				return
			}
			msg := actors.SubmitTask{Req: req, Reply: func(res broker.TaskResult) { respondResult(r, res) }}
			if req.Progress {
				subject := fmt.Sprintf(broker.ProgressT, n.cfg.ID, req.ID)
				msg.Progress = func(p broker.Progress) { publishJSON(n.cfg.NC, subject, p) }
			}
			root.Send(sched, msg)
		},
		broker.EndpointAcquire: func(r micro.Request) {
			var req broker.AcquireRequest
			if decode(r, &req) {
				n.takeLease(r, req) // its caller asked first after a silence (lease_after_silence.go)
			}
		},
		broker.EndpointRelease: func(r micro.Request) {
			var req broker.ReleaseRequest
			if decode(r, &req) {
				root.Send(sched, actors.ReleaseLease{Req: req, Reply: func(a broker.LeaseAnswer) { respond(r, a) }})
			}
		},
		broker.EndpointAbort: func(r micro.Request) {
			var req broker.AbortRequest
			if decode(r, &req) {
				root.Send(sched, actors.AbortTasks{Req: req, Reply: func(a broker.AbortAnswer) {
					if !req.Halt || a.Error != "" || a.Code != "" {
						respond(r, a)
						return
					}
					go func() { respond(r, n.halt(req, a)) }() // not on the scheduler's goroutine
				}})
			}
		},
		broker.EndpointLeases: func(r micro.Request) {
			// Decoded as the others are, so a newer request is refused, not answered in this
			// version; an empty one (`nats req … ''`) asks as {} does.
			var req leasesRequest
			if len(bytes.TrimSpace(r.Data())) == 0 || decode(r, &req) {
				root.Send(sched, actors.ListLeases{Reply: func(a broker.LeasesAnswer) { respond(r, a) }})
			}
		},
		broker.EndpointDrain: n.drainHandler,
		broker.EndpointWatch: n.screens.handle,
	}
	for _, name := range []string{broker.EndpointTask, broker.EndpointAcquire, broker.EndpointRelease, broker.EndpointAbort, broker.EndpointLeases, broker.EndpointDrain,
		broker.EndpointWatch} {
		if err := g.AddEndpoint(name, n.guard.Micro(endpoints[name])); err != nil {
			return fmt.Errorf("node %s: add endpoint %s: %w", n.cfg.ID, name, err)
		}
	}
	return nil
}

// leasesRequest is a request of the leases endpoint: its version alone (gateways send {}).
type leasesRequest struct {
	V int `json:"v,omitempty"`
}

// Version returns the request's wire version.
func (r *leasesRequest) Version() int { return r.V }

// decode reads a request's JSON (a task's by the wire codec: every tool call sends one); a
// malformed or too new request gets a micro error answer.
func decode(r micro.Request, v interface{ Version() int }) bool {
	var err error
	if t, ok := v.(*broker.TaskRequest); ok {
		err = broker.DecodeTaskRequest(r.Data(), t)
	} else {
		err = json.Unmarshal(r.Data(), v)
	}
	if err != nil {
		_ = r.Error("400", "malformed request: "+err.Error(), nil)
		return false
	}
	if v.Version() > broker.WireVersion {
		_ = r.Error("400", fmt.Sprintf("wire version %d is newer than this node's %d; upgrade the node", v.Version(), broker.WireVersion), nil)
		return false
	}
	return true
}

// respond answers off the scheduler's goroutine: encoding a screenshot takes time.
func respond(r micro.Request, v any) {
	go func() { _ = r.RespondJSON(v) }()
}

// respondResult answers a task by the wire codec, off the scheduler's goroutine: encoding a
// screenshot takes time, and even a small answer goes sooner from a goroutine that ends (the
// NATS flusher it wakes runs next, rather than after the scheduler's bookkeeping).
func respondResult(r micro.Request, res broker.TaskResult) {
	go func() {
		data, err := res.AppendJSON(nil)
		if err != nil {
			_ = r.Error("500", "task result not encodable: "+err.Error(), nil)
			return
		}
		_ = r.Respond(data)
	}()
}

func publishJSON(nc *nats.Conn, subject string, v any) {
	if data, err := json.Marshal(v); err == nil {
		_ = nc.Publish(subject, data)
	}
}
