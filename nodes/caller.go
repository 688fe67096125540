package nodes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// callerCheck bounds the question whether a task's caller is still there: one round trip to
// the node's NATS server answers it, so this is only for a connection in trouble, whose task
// then starts as it would have without the question.
const callerCheck = time.Second

// callerListens says whether the caller of req, a task whose turn came after a wait in its
// device's queue or running, is still there (actors.Config.CallerListens): heldCallerListens,
// but for a background task (an agent task), which runs to its end whatever becomes of its
// caller.
func (n *Node) callerListens(ctx context.Context, req broker.TaskRequest) bool {
	if spec, ok := tools.Lookup(req.Tool); ok && spec.Background {
		n.silence.holdStart(ctx) // it does not start once the node hears of its loss (silence_start.go)
		return true
	}
	return n.heldCallerListens(ctx, req)
}

// heldCallerListens says whether the caller of req is still there: asked on the probe subject
// of its gateway's connection (broker.TaskRequest.Probe), per call if the gateway answers so
// (callEnded). A task that cannot be asked (from an older gateway) starts. It is asked of
// every task that came as the node may just have been declared lost (silence.go,
// actors.Config.HeldCallerListens), a background task too: its gateway waits for it as long as
// it runs, whatever became of its caller, but stopped when told the node was lost (and told a
// caller that waited so, who may have started it again elsewhere).
//
// A question with no answer in time lets the task start, as before the question (an older or
// busy gateway), unless the node may have been lost meanwhile, or its caller is across a
// site's link whose cut its gateway told it of (callerUnanswered). One whose
// caller says it still waits starts only if the node heard of no loss meanwhile (lostAsAsked),
// nor hears of one before its driver gets it (holdStart).
func (n *Node) heldCallerListens(ctx context.Context, req broker.TaskRequest) bool {
	n.silence.holdStart(ctx) // a loss heard from now until it runs ends it node_lost (silence_start.go)
	if !ValidID(req.Probe) { // a token: the node publishes nowhere else
		return true
	}
	seen := n.silence.lossesHeard()
	var unanswered time.Time // since its caller's side has not answered though the node's server does
	for held := false; ; held = true {
		silent := n.silence.silentNow() // as it asks: an answer lost to the silence says nothing
		asked := time.Now()
		next := asked.Add(callerCheck)
		gone, err := n.callerLeft(ctx, req.Probe, req.ID)
		if err == nil {
			if gone { // the scheduler says what came of it (actors' caller_gone.go)
				n.cfg.Log.Debug("a task's caller is gone", "task", req.ID, "serial", req.Serial, "tool", req.Tool)
				return false
			}
			if n.lostAsAsked(ctx, req, seen) {
				return false
			}
			if n.silence.handedBack != nil {
				n.silence.handedBack()
			}
			return true
		}
		if errors.Is(err, errCallerSilent) && unanswered.IsZero() {
			unanswered = asked
		}
		if start, asked := n.callerUnanswered(ctx, req, silent || n.silence.silentNow(), err, unanswered); asked {
			return start
		}
		if !n.silence.mayHaveBeenLost() { // its caller's side is silent across a site's link (callerUnanswered)
			if !held && errors.Is(err, errCallerSilent) {
				n.cfg.Log.Info(fmt.Sprintf("a task's caller, across a site's link, does not answer though this node's NATS server does: the link may be cut; "+
					"it is asked again, and taken as gone if it says nothing for %s", callerSilentFor), "task", req.ID, "serial", req.Serial, "tool", req.Tool, "err", err)
			}
		} else if !held {
			n.cfg.Log.Info("a task's turn came while this node is silent (its link to NATS does not answer), and its caller cannot be asked: "+
				"it waits, and runs only if its caller says it still waits once the link answers", "task", req.ID, "serial", req.Serial, "tool", req.Tool)
		}
		t := time.NewTimer(time.Until(next)) // at most a question every callerCheck
		select {
		case <-ctx.Done():
			t.Stop()
			return false // its cause says why (the device's worker reads it)
		case <-t.C:
		}
	}
}

// revokeWait bounds how long a running task whose node heard of its loss as its caller was
// asked waits for the revoke that follows the loss to end it: the node sends it at once, so
// this is only for a loss it had answered already (a second gateway's verdict), which revokes
// nothing. A task asked before it runs is ended by the loss itself (holdStart), and waits not.
const revokeWait = time.Second

// lostAsAsked says whether the node heard of a loss since lossesHeard said seen, as req's
// caller was asked: it said it still waited, but was most likely told the node was lost just
// after, and req must not run. A task asked before it runs was ended by the loss as the node
// heard it (holdStart: its record says node_lost, nothing run); a running one by the revoke
// that follows, which lostAsAsked waits for, for at most revokeWait.
func (n *Node) lostAsAsked(ctx context.Context, req broker.TaskRequest, seen uint64) bool {
	if !n.silence.lostSince(seen) {
		return false
	}
	t := time.NewTimer(revokeWait)
	defer t.Stop()
	select {
	case <-ctx.Done(): // its cause says why (the device's worker reads it)
	case <-t.C:
		n.cfg.Log.Info("this node heard of its loss again as a task's caller was asked whether it still waited; the task does not run (its caller was most likely told so)",
			"task", req.ID, "serial", req.Serial, "tool", req.Tool)
	}
	return true
}

// callerUnanswered says what to do with req, whose caller's gateway did not answer (err), and
// whether that is the answer (asked) or the caller is to be asked again. A node that is not
// silent, and was not a moment ago, starts it: its gateway may be old or slow; but not a call
// from across a site's link (broker.ProbeAcrossSite): its gateway told its caller, as the link
// went silent, that the task goes on only if the link is back within callerSilentFor. Such a
// caller that has not answered since unanswered, while the node's own server answers, is taken
// as gone once that has passed; asked again until then (and while the node's own link does
// not answer a round trip either: that says nothing of the caller). One that may have been
// declared lost meanwhile (its link cut while the task waited its turn: its caller was most
// likely told so) must not run what may have been answered already (SCHEDULER.md rule 7):
// while it is silent (wasSilent: it was as it asked, or is now) it holds the task and asks
// again, at most every callerCheck, until its link answers or the task's deadline; once the
// link answers, a caller that still says nothing is taken as gone. The node most likely hears
// of its loss meanwhile, which ends the task node_lost, nothing run.
func (n *Node) callerUnanswered(ctx context.Context, req broker.TaskRequest, wasSilent bool, err error, unanswered time.Time) (start, asked bool) {
	switch {
	case ctx.Err() != nil:
		return false, true // its cause says why (the device's worker reads it)
	case !n.silence.mayHaveBeenLost() && !broker.ProbeAcrossSite(req.Probe):
		n.cfg.Log.Debug("could not ask whether a task's caller is still there; the task starts", "task", req.ID, "serial", req.Serial, "err", err)
		return true, true
	case !n.silence.mayHaveBeenLost():
		if !unanswered.IsZero() && time.Since(unanswered) >= callerSilentFor {
			n.cfg.Log.Info("a task's caller, across a site's link, said nothing for the link's grace though this node's NATS server answers: the link is most likely cut, "+
				"and its caller told so; it is taken as gone", "task", req.ID, "serial", req.Serial, "tool", req.Tool, "silent", time.Since(unanswered).Round(time.Millisecond))
			return false, true
		}
		return false, false
	case !wasSilent:
		n.cfg.Log.Info("a task's caller did not say whether it still waits, as this node may just have been declared lost; it does not run",
			"task", req.ID, "serial", req.Serial, "tool", req.Tool, "err", err)
		return false, true
	}
	return false, false
}

// callerLeft asks the client behind probe, a token of its connection, whether its call id
// still waits for its answer (or, an older gateway's, whether the connection is still there),
// within callerCheck; siteCallerCheck across a site's link, whose unanswered probes count.
func (n *Node) callerLeft(ctx context.Context, probe, id string) (bool, error) {
	wait := callerCheck
	if broker.ProbeAcrossSite(probe) {
		wait = siteCallerCheck
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	subject := fmt.Sprintf(broker.ProgressT, n.cfg.ID, probe)
	if broker.ProbeAnswers(probe) {
		return callEnded(ctx, n.cfg.NC, subject, n.cfg.ID, id)
	}
	return noListener(ctx, n.cfg.NC, subject) // an older gateway's: its connection is all it tells
}

// callEnded asks the client behind probe whether task id's call still waits for its answer
// (broker.ProbeAnswers): gone if it says so, or if its connection is (no responders, which
// comes where the answer would). Its answer is the truth when asked, whatever aborts of its
// calls are still on their way: a caller that left as the device was freed for it (several
// callers cut at once) is not taken for one that waits. No answer within ctx is an error.
func callEnded(ctx context.Context, nc *nats.Conn, probe, node, id string) (bool, error) {
	answers := make(chan *nats.Msg, 1)
	reply := broker.CallerAnswerSubject(node, id)
	sub, err := nc.ChanSubscribe(reply, answers)
	if err != nil {
		return false, fmt.Errorf("subscribe for the answer to a probe of %s: %w", probe, err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := nc.PublishRequest(probe, reply, []byte(id)); err != nil {
		return false, fmt.Errorf("probe %s: %w", probe, err)
	}
	// A round trip to the node's own server: without it, no answer says nothing of the caller.
	if err := nc.FlushWithContext(ctx); err != nil {
		return false, fmt.Errorf("probe %s: no round trip to this node's NATS server: %w", probe, err)
	}
	select {
	case m := <-answers:
		if len(m.Data) == 0 && m.Header.Get("Status") == "503" {
			return true, nil
		}
		return !bytes.Equal(m.Data, broker.CallerWaits), nil
	case <-ctx.Done():
		return false, fmt.Errorf("probe %s: %w: %w", probe, errCallerSilent, ctx.Err())
	}
}

// errCallerSilent is a probe left unanswered though the node's own NATS server answered a
// round trip after it: the caller's side is silent (a busy gateway, or a site's link cut).
var errCallerSilent = errors.New("no answer, though this node's NATS server answers")

// callerSilentFor is how long a caller across a site's link may leave its probes unanswered
// before its task is taken as gone: the grace its gateway told it of (broker lostErr), as long
// as a gone caller's running task is kept (actors.DefaultCallerGoneAfter).
const callerSilentFor = actors.DefaultCallerGoneAfter

// siteCallerCheck bounds a question across a site's link: the farm's slow-link rule (an answer
// within 2 s counts, as for a site's link and a node's heartbeats), so a slow link is no cut.
const siteCallerCheck = 2 * time.Second

// noListener says whether nothing subscribes to subject, as the node's NATS server sees it.
// A request there with no one subscribed is answered "no responders" (status 503) by that
// server as it takes the request, so the status is queued to this connection before the
// answer to a PING sent after it: once the flush returns, the status is in the channel or
// will not come. A listener that gets the request does not answer it.
func noListener(ctx context.Context, nc *nats.Conn, subject string) (bool, error) {
	statuses := make(chan *nats.Msg, 1)
	sub, err := nc.ChanSubscribe(nc.NewInbox(), statuses)
	if err != nil {
		return false, fmt.Errorf("subscribe for the answer to a probe of %s: %w", subject, err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := nc.PublishRequest(subject, sub.Subject, nil); err != nil {
		return false, fmt.Errorf("probe %s: %w", subject, err)
	}
	if err := nc.FlushWithContext(ctx); err != nil {
		return false, fmt.Errorf("probe %s: no round trip to the NATS server: %w", subject, err)
	}
	select {
	case m := <-statuses:
		return len(m.Data) == 0 && m.Header.Get("Status") == "503", nil
	default:
		return false, nil
	}
}
