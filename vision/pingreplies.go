package vision

import (
	"strconv"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"
)

// pingReplies takes the answers to all of a client's pings of the workers on one subscription,
// made on first use (a wildcard under an inbox of its own), and hands each to the survey that
// asked, by the last token of its reply subject: a survey no longer subscribes and unsubscribes
// on its own (two protocol round trips, and a subscription on the server for the ping's bound).
type pingReplies struct {
	mu      sync.Mutex
	prefix  string // the inbox; its surveys reply to prefix.N
	sub     *nats.Subscription
	next    uint64
	surveys map[string]func(*nats.Msg)
}

// open registers h for the answers to one ping: the reply subject to send it with, and close,
// after which its answers are dropped.
func (p *pingReplies) open(nc *nats.Conn, h func(*nats.Msg)) (reply string, closeIt func(), err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sub == nil || !p.sub.IsValid() {
		prefix := nc.NewInbox()
		sub, err := nc.Subscribe(prefix+".*", p.route)
		if err != nil {
			return "", nil, err
		}
		p.prefix, p.sub, p.surveys = prefix, sub, map[string]func(*nats.Msg){}
	}
	p.next++
	token := strconv.FormatUint(p.next, 10)
	p.surveys[token] = h
	return p.prefix + "." + token, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		delete(p.surveys, token)
	}, nil
}

// route hands an answer to its survey, if it is still open.
func (p *pingReplies) route(m *nats.Msg) {
	p.mu.Lock()
	h := p.surveys[strings.TrimPrefix(m.Subject, p.prefix+".")]
	p.mu.Unlock()
	if h != nil {
		h(m)
	}
}
