package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// A site's probe asks its JetStream for its account's information: any answer means the link
// carries requests both ways, and no responders (the leaf connection closed) that it is down.
// No answer within siteProbeTimeout is the site's silence only if this process's own server
// then answers a round trip, the guard Liveness has (liveness_probe.go): a hub gateway whose
// server stalls hears no site either, and that silence is its own. The round trip also reads
// what the server sent before it, so an answer that came in time but was not read in time
// (this process's goroutines not run, under load) still counts as one.

// errOwnSilence marks a probe whose site did not answer while this process's own server did
// not either: it says nothing of the site's link.
var errOwnSilence = errors.New("this process's own NATS server did not answer either: the silence is this process's, not the site's")

// probe asks site whether its link is up: nil if it answered, an error wrapping
// errOwnSilence if the silence is this process's own (own remembers its server's answers
// and logs to log), another error if the link is down.
func (w *SiteWatch) probe(ctx context.Context, site string, own *ownServer, log *slog.Logger) error {
	reply, mine, done, err := w.answers.expect(w.nc)
	if err != nil {
		return fmt.Errorf("probe site %s: %w", site, err)
	}
	defer done()
	if err := w.nc.PublishRequest(siteAPI(site)+".INFO", reply, nil); err != nil {
		return fmt.Errorf("probe site %s: %w", site, err)
	}
	timeout := time.NewTimer(siteProbeTimeout)
	defer timeout.Stop()
	select {
	case m := <-mine:
		own.heard(log, time.Now()) // it came through this process's server
		return siteAnswer(m)
	case <-ctx.Done():
		return ctx.Err()
	case <-timeout.C:
	}
	answered, back := own.answers(w.roundTrip, log, time.Now())
	w.answers.settle(ctx)
	select {
	case m := <-mine: // there in time, read late
		return siteAnswer(m)
	default:
	}
	if !answered || !back.IsZero() {
		return fmt.Errorf("site %s did not answer within %s: %w", site, siteProbeTimeout, errOwnSilence)
	}
	return fmt.Errorf("site %s did not answer within %s: %w", site, siteProbeTimeout, nats.ErrTimeout)
}

// siteAnswers is a watch's one inbox for its probes' answers, <inbox>.<token>, a token a
// probe: one subscription for as long as the connection lives, not one a probe, whose interest
// a hub would send to every site through the leaf connections twice a second a site. Answers
// come on one channel, straight from the connection's reader, and one reader of the watch's
// (read) hands each to the probe of its token (an answer to a probe that ended is dropped), so
// that a watch's probes and CutOff's, at once, each get their own. A probe past its timeout
// has the reader hand on all that came before its round trip (settle): an answer that came in
// time counts wherever it was then, on the inbox or in the reader's hands (the late answers
// above).
type siteAnswers struct {
	mu      sync.Mutex
	prefix  string // "" until the inbox is made, at the first probe
	next    uint64
	waiting map[string]chan *nats.Msg // token → its probe's answer
	inbox   chan *nats.Msg            // the answers as the connection delivers them, for the reader
	settles chan chan struct{}        // to the reader: hand on what the inbox holds, then close it
	gone    chan struct{}             // closed with the inbox (the connection closed)
}

// siteAnswersQueue is how many answers may wait on the inbox for the reader: beyond, the
// connection drops them (a slow consumer) and their probes wait out their timeout.
const siteAnswersQueue = 256

// expect gives a probe its reply subject and where its answer comes; done ends the wait.
func (a *siteAnswers) expect(nc *nats.Conn) (reply string, answer <-chan *nats.Msg, done func(), err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.prefix == "" {
		all := make(chan *nats.Msg, siteAnswersQueue)
		prefix := nc.NewInbox() + "."
		sub, err := nc.ChanSubscribe(prefix+"*", all)
		if err != nil {
			return "", nil, nil, err
		}
		a.prefix, a.waiting, a.inbox = prefix, map[string]chan *nats.Msg{}, all
		a.settles, a.gone = make(chan chan struct{}, 1), make(chan struct{})
		var closed sync.Once
		sub.SetClosedHandler(func(string) { closed.Do(func() { close(a.gone) }) })
		go a.read()
	}
	a.next++
	token := strconv.FormatUint(a.next, 36)
	ch := make(chan *nats.Msg, 1)
	a.waiting[token] = ch
	return a.prefix + token, ch, func() {
		a.mu.Lock()
		delete(a.waiting, token)
		a.mu.Unlock()
	}, nil
}

// read hands on each answer of the inbox, until it is closed.
func (a *siteAnswers) read() {
	for {
		select {
		case m := <-a.inbox:
			a.route(m)
		case settled := <-a.settles:
			for more := true; more; {
				select {
				case m := <-a.inbox:
					a.route(m)
				default:
					more = false
				}
			}
			close(settled)
		case <-a.gone:
			return
		}
	}
}

// settle waits until the reader has handed on every answer that reached the connection
// before it was called (or ctx ended, or the inbox was closed).
func (a *siteAnswers) settle(ctx context.Context) {
	settled := make(chan struct{})
	select {
	case a.settles <- settled:
	case <-a.gone:
		return
	case <-ctx.Done():
		return
	}
	select {
	case <-settled:
	case <-a.gone:
	case <-ctx.Done():
	}
}

// route hands an answer to the probe it is for, if it still waits.
func (a *siteAnswers) route(m *nats.Msg) {
	token, ok := strings.CutPrefix(m.Subject, a.prefix)
	if !ok {
		return
	}
	a.mu.Lock()
	ch := a.waiting[token]
	a.mu.Unlock()
	select {
	case ch <- m: // a nil ch (a probe that ended) drops it
	default:
	}
}

// siteAnswer is what a site's answer to a probe says of its link: nil for an answer, an
// error for no responders.
func siteAnswer(m *nats.Msg) error {
	if len(m.Data) == 0 && m.Header.Get("Status") == "503" {
		return nats.ErrNoResponders
	}
	return nil
}
