package vision

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
)

// hungCheckEvery is how long a request waits for its answer before the client pings the
// workers, and again as long as it waits: a worker that took the request and hung (kill -STOP)
// answers neither. When no worker answers, the call ends *PingUnanswered within
// hungCheckEvery+pingBound (5 s), not its attempt, even when the tools skipped their ping
// because a worker answered lately. When others answer and the one that has the request (or,
// sent to the queue group, a worker this client knew) does not, that one is hung: the request
// goes to one that answered, and further requests pass the hung one over until it answers a
// ping again. One this client never heard from cannot be named: a request sent to the queue
// group that waits on through a ping the live ones answered goes to one of them after one more
// hungCheckEvery (the first send stays open); when that one answers first, the next requests
// pass the queue group over for up to unnamedHungFor, or until a worker answers this client
// for the first time. A healthy worker answers most requests sooner, so their calls send no ping; a
// slow one answers the ping at once, whatever it works on, and the call waits on.
const hungCheckEvery = 3 * time.Second

// errWorkerGone says that the worker a request was sent to directly no longer listens.
var errWorkerGone = errors.New("vision: the worker asked no longer listens")

// reply is the answer to one send of a request.
type reply struct {
	msg *nats.Msg
	err error
	to  string // the worker it was sent to; "": the queue group
}

// request sends one attempt of a call to the queue group (or, while a worker is hung, to a
// live one): the answer, or the attempt's error; ErrNoWorker (a *PingUnanswered when workers
// listen but none answers) when the workers' ping, asked every hungCheckEvery while it waits,
// goes unanswered; errWorkerGone when the worker it was sent to left.
func (c *Client) request(ctx context.Context, endpoint string, data []byte) (*nats.Msg, error) {
	actx, cancel := context.WithTimeout(ctx, c.attempt)
	defer cancel() // ends the sends still waiting: their replies go to the buffer
	c.recheckHung()
	replies := make(chan reply, 2)
	send := func(to string) {
		subject := Prefix + "." + endpoint
		if to != "" {
			subject = DirectSubject(to, endpoint)
		}
		go func() {
			msg, err := c.nc.RequestWithContext(actx, subject, data)
			replies <- reply{msg: msg, err: err, to: to}
		}()
	}
	taker := c.workers.pick()
	send(taker)
	pending, moved := 1, false
	// quiet: a ping while the request waited on the queue group found every known worker live;
	// unnamed: the request went to a live worker after all (a worker never heard from holds it).
	quiet, unnamed := false, false
	tick := time.NewTicker(hungCheckEvery)
	defer tick.Stop()
	for {
		select {
		case r := <-replies:
			pending--
			if r.err == nil {
				c.workers.answered(r.msg.Header.Get(WorkerHeader))
				if unnamed && r.to != "" && pending > 0 {
					c.workers.markUnnamedHung() // the queue group's send still waits
				}
				return r.msg, nil
			}
			gone := r.to != "" && errors.Is(r.err, nats.ErrNoResponders)
			if gone {
				c.workers.gone(r.to)
			}
			switch {
			case pending > 0:
				continue // the other send may still be answered
			case gone:
				return nil, errWorkerGone
			}
			return nil, r.err
		case <-tick.C:
			to, live, err := c.checkHung(actx, taker)
			if err != nil {
				// The ping took up to pingBound: an answer that came meanwhile still counts.
				if msg := answerWaiting(replies, pending); msg != nil {
					c.workers.answered(msg.Header.Get(WorkerHeader))
					return msg, nil
				}
				return nil, err
			}
			if to == "" && live && taker == "" && !moved {
				// A worker this client never heard from answers no ping, so it is never found
				// silent: one that took the request and hung is only seen in that the request
				// waits on while the live ones answer. One more hungCheckEvery and it goes to
				// one of them.
				if quiet {
					to = c.workers.pickLive()
					unnamed = to != ""
				}
				quiet = true
			}
			if to != "" && !moved {
				// The first send stays open: if its worker was only slow, its answer still counts.
				send(to)
				taker, pending, moved = to, pending+1, true
			}
		}
	}
}

// answerWaiting returns an answer among the pending sends' replies that already came, or nil;
// it does not wait.
func answerWaiting(replies <-chan reply, pending int) *nats.Msg {
	for range pending {
		select {
		case r := <-replies:
			if r.err == nil {
				return r.msg
			}
		default:
			return nil
		}
	}
	return nil
}

// checkHung pings the workers while a request sent to taker ("": the queue group) waits. It
// returns the worker to send the request to instead when the one that has it is hung, ""
// to wait on, or *PingUnanswered when no worker answers; live says that workers answered.
func (c *Client) checkHung(ctx context.Context, taker string) (to string, live bool, err error) {
	answered, bound, err := c.survey(ctx, func(got map[string]bool) bool {
		if taker != "" {
			return got[taker] // it is only slow
		}
		return c.workers.allAnswered(got)
	})
	switch {
	case ctx.Err() != nil:
		return "", false, nil // the attempt is over: its send says so
	case errors.Is(err, nats.ErrNoResponders):
		return "", false, ErrNoWorker
	case len(answered) == 0:
		return "", false, &PingUnanswered{Bound: bound}
	case taker != "" && answered[taker]:
		return "", true, nil
	}
	var hung []string
	if taker != "" {
		hung = append(hung, taker)
	} else {
		// Sent to the queue group: the worker that has it is not known. A known worker that did
		// not answer is hung (or gone: then nothing listens on its own subject).
		for _, id := range c.workers.silent(answered) {
			if c.listens(ctx, id) {
				hung = append(hung, id)
			} else {
				c.workers.gone(id)
			}
		}
		if len(hung) == 0 {
			return "", true, nil // every worker known answered: the one that has it is slow (or unknown)
		}
	}
	c.workers.markHung(hung...)
	return c.workers.pick(), true, nil
}

// listens says whether worker id still subscribes to its own subjects: a request there with no
// subscriber is answered "no responders" by the server before it answers a flush. (A hung worker
// never reads the request; it reads it once it runs again, and its answer goes to no one.)
func (c *Client) listens(ctx context.Context, id string) bool {
	inbox := c.nc.NewInbox()
	sub, err := c.nc.SubscribeSync(inbox)
	if err != nil {
		return true
	}
	defer func() { _ = sub.Unsubscribe() }()
	if c.nc.PublishRequest(DirectSubject(id, EndpointDiff), inbox, nil) != nil || c.nc.FlushWithContext(ctx) != nil {
		return true
	}
	// nats.go hands the server's 503 to a sync subscription as ErrNoResponders, not a message.
	msg, err := sub.NextMsg(0)
	if errors.Is(err, nats.ErrNoResponders) {
		return false
	}
	return err != nil || msg.Header.Get("Status") != "503"
}

// recheckHung pings the workers, at most every hungCheckEvery while one is marked hung and
// without holding up the call: one that answers is taken back (survey records it).
func (c *Client) recheckHung() {
	if !c.workers.recheckDue() {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), pingBound)
		defer cancel()
		answered, _, _ := c.survey(ctx, func(map[string]bool) bool { return false })
		// A hung worker that was then killed answers no ping ever: forget it, or every request
		// keeps passing the queue group over.
		lctx, lcancel := context.WithTimeout(context.Background(), pingBound)
		defer lcancel()
		for _, id := range c.workers.hungSilent(answered) {
			if !c.listens(lctx, id) {
				c.workers.gone(id)
			}
		}
	}()
}
