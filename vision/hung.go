package vision

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
)

// hungCheckEvery is how long a request waits for its answer before the client pings the
// workers, and again as long as it waits: a worker that took the request and hung (kill -STOP)
// answers neither. When no worker answers, the call ends *PingUnanswered within
// hungCheckEvery+pingBound (5 s), not its attempt, even when the tools skipped their ping
// because a worker answered lately.
//
// A call is sent again only to another worker that answered the ping, and only when the one
// that has it did not: a worker that answers its ping is alive, only slow (a large OCR), and is
// waited on, past the attempt too, within the call's deadline; so is a hung one when no other
// worker answers (said at debug). Sent to the queue group, the call's holder is not known: the
// client asks the workers that answered whether they hold it (EndpointHolds, the call's
// CallHeader). One that does is its holder. When none does, a worker that did not answer holds
// it: a known one that missed the ping is marked hung, and further requests pass it over until
// it answers a ping again; one this client never heard from cannot be named, so the call goes
// to one that answered after one more hungCheckEvery without a holder (the first send stays
// open), and when that one answers first, the next requests pass the queue group over for up to
// unnamedHungFor, or until a worker answers this client for the first time. A worker that cannot
// say (an older one, or its answer late) may hold it: the call is not sent again, and waits
// until its attempt ends, as before there was a holds endpoint. A healthy worker answers most
// requests sooner, so their calls send no ping.
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
// goes unanswered; errWorkerGone when the worker it was sent to left. The attempt ends at
// c.attempt unless the worker that holds the call answered the last ping: then it waits on.
func (c *Client) request(ctx context.Context, endpoint string, data []byte) (*nats.Msg, error) {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the sends still waiting: their replies go to the buffer
	attempt := time.NewTimer(c.attempt)
	defer attempt.Stop()
	c.recheckHung()
	call := rand.Text()
	replies := make(chan reply, 2)
	send := func(to string) {
		msg := nats.NewMsg(Prefix + "." + endpoint)
		if to != "" {
			msg.Subject = DirectSubject(to, endpoint)
		}
		msg.Header.Set(CallHeader, call)
		msg.Data = data
		go func() {
			m, err := c.nc.RequestMsgWithContext(rctx, msg)
			replies <- reply{msg: m, err: err, to: to}
		}()
	}
	holder := c.workers.pick() // "": the queue group, which hands it to a worker not known yet
	send(holder)
	pending, moved := 1, false
	// slow: the last ping found the holder live; quiet: a ping found no live worker holding it
	// and no known one silent; unnamed: the call went to a live worker after all (a worker
	// never heard from holds it).
	slow, quiet, unnamed := false, false, false
	overdue := false // the attempt ended while the holder was slow
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
		case <-attempt.C:
			if !slow {
				return nil, context.DeadlineExceeded // the call tries again, while its deadline allows
			}
			overdue = true
			c.log.Debug("vision: a call waits past its attempt on the worker that holds it: it answers its ping, so it is slow, not hung",
				"endpoint", endpoint, "worker", holder, "attempt", c.attempt)
		case <-tick.C:
			v, err := c.checkHung(rctx, holder, call)
			if err != nil {
				// The ping took up to pingBound: an answer that came meanwhile still counts.
				if msg := answerWaiting(replies, pending); msg != nil {
					c.workers.answered(msg.Header.Get(WorkerHeader))
					return msg, nil
				}
				return nil, err
			}
			slow = v.slow
			if v.holder != "" {
				holder = v.holder
			}
			if overdue && !slow && v.live {
				return nil, context.DeadlineExceeded // past its attempt, and no longer only slow
			}
			switch {
			case slow || v.unsure || moved || !v.live:
				// Only slow, or may be (unsure: the call waits, but only until its attempt
				// ends); or sent again already; or the call's context ended.
				continue
			case holder == "" && !v.foundHung && !quiet:
				quiet = true // one more hungCheckEvery: a request on its way is not held yet
				continue
			}
			to := c.workers.pickAmong(v.answered, holder)
			if to == "" {
				c.log.Debug("vision: the worker that holds a call does not answer its ping, and no other worker does: the call waits on it",
					"endpoint", endpoint, "worker", holder)
				continue
			}
			// The first send stays open: if its worker was only slow, its answer still counts.
			unnamed = holder == "" && !v.foundHung
			send(to)
			holder, pending, moved = to, pending+1, true
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

// hungCheck is what a ping of the workers found while a call waited.
type hungCheck struct {
	live      bool            // workers answered (false: the call's context ended first)
	answered  map[string]bool // the workers that answered the ping
	holder    string          // the worker that holds the call ("": none of those that answered)
	slow      bool            // the holder answered the ping
	unsure    bool            // no holder found, but a worker that answered could not say
	foundHung bool            // a worker known to this client missed the ping: marked hung
}

// checkHung pings the workers while a call sent to holder ("": the queue group) waits, and
// asks those that answered which holds it when holder is not known (EndpointHolds). It returns
// *PingUnanswered when no worker answers.
func (c *Client) checkHung(ctx context.Context, holder, call string) (hungCheck, error) {
	answered, bound, err := c.survey(ctx, func(got map[string]bool) bool {
		if holder != "" {
			return got[holder] // it is only slow
		}
		return c.workers.allAnswered(got)
	})
	switch {
	case ctx.Err() != nil:
		return hungCheck{}, nil // the call is over: its sends say so
	case errors.Is(err, nats.ErrNoResponders):
		return hungCheck{}, ErrNoWorker
	case len(answered) == 0:
		return hungCheck{}, &PingUnanswered{Bound: bound}
	}
	v := hungCheck{live: true, answered: answered, holder: holder}
	if holder == "" {
		v.holder, v.unsure = c.whoHolds(ctx, answered, call)
	}
	switch {
	case v.holder != "" && answered[v.holder]:
		v.slow = true
		return v, nil
	case v.holder != "":
		c.markHung(v.holder)
		v.foundHung = true
		return v, nil
	case v.unsure:
		return v, nil // a worker that answered may hold it: sending it again could do it twice
	}
	// None of those that answered holds it: a known worker that did not answer is hung (or
	// gone: then nothing listens on its own subject).
	var hung []string
	for _, id := range c.workers.silent(answered) {
		if c.listens(ctx, id) {
			hung = append(hung, id)
		} else {
			c.workers.gone(id)
		}
	}
	if len(hung) > 0 {
		c.markHung(hung...)
		v.foundHung = true
	}
	return v, nil
}

// markHung records that these workers missed a ping while a call waited, and warns of each
// that was not hung already: its process is stopped or stuck, and an operator should look.
func (c *Client) markHung(ids ...string) {
	for _, id := range c.workers.markHung(ids...) {
		c.log.Warn("vision: a worker missed its ping while a call waited: it is hung, and calls pass it over until it answers a ping again "+
			"(check its `corral vision` process, its /metrics and its logs)", "worker", id)
	}
}

// whoHolds asks each worker in answered whether it holds call: the one that does, or "";
// unsure when one could not say (no holds endpoint, or no answer within pingBound).
func (c *Client) whoHolds(ctx context.Context, answered map[string]bool, call string) (holder string, unsure bool) {
	ctx, cancel := context.WithTimeout(ctx, min(pingBound, c.attempt))
	defer cancel()
	data, err := json.Marshal(HoldsRequest{V: WireVersion, Call: call})
	if err != nil {
		return "", true
	}
	type said struct {
		id    string
		holds bool
		err   error
	}
	answers := make(chan said, len(answered))
	for id := range answered {
		go func() {
			msg, err := c.nc.RequestWithContext(ctx, DirectSubject(id, EndpointHolds), data)
			var res HoldsResult
			if err == nil {
				err = json.Unmarshal(msg.Data, &res)
			}
			answers <- said{id: id, holds: res.Holds, err: err}
		}()
	}
	for range answered {
		a := <-answers
		switch {
		case a.err != nil:
			unsure = true
		case a.holds:
			return a.id, false
		}
	}
	return "", unsure
}

// listensProbe is what listens sends: a holds question of no call, which a worker answers at
// once, off its slots, and counts nowhere. Any other endpoint's request, empty, would count as
// bad input when a hung worker runs again and reads it.
var listensProbe, _ = json.Marshal(HoldsRequest{V: WireVersion})

// listens says whether worker id still subscribes to its own subjects: a request there with no
// subscriber is answered "no responders" by the server before it answers a flush. (A hung worker
// never reads the request; it reads it once it runs again, and its answer goes to no one.)
func (c *Client) listens(ctx context.Context, id string) bool {
	ctx, cancel := context.WithTimeout(ctx, pingBound) // a flush wants a deadline: the call's may have none
	defer cancel()
	inbox := c.nc.NewInbox()
	sub, err := c.nc.SubscribeSync(inbox)
	if err != nil {
		return true
	}
	defer func() { _ = sub.Unsubscribe() }()
	if c.nc.PublishRequest(DirectSubject(id, EndpointHolds), inbox, listensProbe) != nil || c.nc.FlushWithContext(ctx) != nil {
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
