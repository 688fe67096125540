package mcp

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// RateLimit bounds the device calls one gateway sends to one device. A call over a limit is
// refused at once with a "retry after" answer (and _meta.retryAfterMs) instead of piling up
// in the device's queue. The limits are per gateway: N gateways let N times as much through.
// The node's scheduler still runs one task at a time per device whatever comes in.
//
// Each device has a bucket and a waiting count per principal for the calls that carry a lease,
// and one for the calls without a lease: others hammering a leased device (answered "busy" by
// its node) use up their own budget, never the holder's. The bucket is the principal's, not the
// handle's: the gateway cannot tell a real handle from a made-up one, and a bucket per handle
// let a caller with a new handle at each call go unlimited.
type RateLimit struct {
	// PerSecond is the sustained rate of calls per device (a token bucket); 0: no rate limit.
	PerSecond float64
	// Burst is the bucket's size: calls a device may take at once after a quiet spell.
	// 0: max(1, PerSecond).
	Burst int
	// MaxWaiting caps the calls of one device waiting in its queue or running, through this
	// gateway; 0: no cap.
	MaxWaiting int
}

// queueRetry is the retry hint when a device's queue is full: its tasks' length is unknown.
const queueRetry = time.Second

// maxBuckets bounds the limiter's memory: beyond it, idle full buckets are forgotten.
const maxBuckets = 4096

// ParseRate reads a rate as --rate-limit gives it: "50/s", "600/m", "50" (per second), or
// "0"/"off" for none.
func ParseRate(s string) (float64, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	if s == "" || s == "off" || s == "0" {
		return 0, nil
	}
	num, unit, _ := strings.Cut(s, "/")
	per := 1.0
	switch unit {
	case "", "s", "sec", "second":
	case "m", "min", "minute":
		per = 60
	default:
		return 0, fmt.Errorf("rate %q: the unit after / must be s or m (e.g. 50/s, 600/m)", s)
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(n) || math.IsInf(n, 0) || n < 0 {
		return 0, fmt.Errorf("rate %q: want calls per second like 50/s, 600/m, or off", s)
	}
	return n / per, nil
}

// limiter keeps a token bucket and a count of calls in flight per device and bucket owner.
type limiter struct {
	rl  RateLimit
	now func() time.Time

	mu      sync.Mutex
	devices map[bucketKey]*bucket
}

// bucketKey names a bucket: a device, and whose calls it counts (leaseOwner; "" for the calls
// without a lease).
type bucketKey struct{ serial, owner string }

// leaseOwner is the owner of the bucket of a call under a lease: its principal, which the
// gateway authenticated, never the handle, which the caller chose.
func leaseOwner(ctx context.Context, lease string) string {
	if lease == "" {
		return ""
	}
	return "principal:" + holderFrom(ctx).Principal
}

type bucket struct {
	tokens   float64
	last     time.Time
	inflight int
}

// newLimiter returns a limiter, or nil when rl limits nothing.
func newLimiter(rl RateLimit) *limiter {
	if rl.PerSecond <= 0 && rl.MaxWaiting <= 0 {
		return nil
	}
	if rl.Burst <= 0 {
		rl.Burst = max(1, int(math.Ceil(rl.PerSecond)))
	}
	return &limiter{rl: rl, now: time.Now, devices: map[bucketKey]*bucket{}}
}

// admit takes a token for a call to serial from owner's bucket (leaseOwner). It returns the
// function that ends the call, or how long to wait and why not.
func (l *limiter) admit(serial, owner string) (done func(), retry time.Duration, reason string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	key := bucketKey{serial, owner}
	b := l.devices[key]
	if b == nil {
		if len(l.devices) >= maxBuckets {
			l.forget(now)
		}
		if len(l.devices) >= maxBuckets && owner != "" {
			// Still full: owners share the calls without a lease rather than grow the map.
			key = bucketKey{serial: serial}
			b = l.devices[key]
		}
	}
	if b == nil {
		b = &bucket{tokens: float64(l.rl.Burst), last: now}
		l.devices[key] = b
	}
	l.refill(b, now)
	if l.rl.MaxWaiting > 0 && b.inflight >= l.rl.MaxWaiting {
		return nil, queueRetry, reasonQueue
	}
	if l.rl.PerSecond > 0 {
		if b.tokens < 1 {
			wait := time.Duration(math.Ceil((1 - b.tokens) / l.rl.PerSecond * float64(time.Second)))
			return nil, wait, reasonRate
		}
		b.tokens--
	}
	b.inflight++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			b.inflight--
			l.mu.Unlock()
		})
	}, 0, ""
}

func (l *limiter) refill(b *bucket, now time.Time) {
	if l.rl.PerSecond > 0 && now.After(b.last) {
		b.tokens = min(float64(l.rl.Burst), b.tokens+now.Sub(b.last).Seconds()*l.rl.PerSecond)
	}
	b.last = now
}

// forget drops the buckets of idle devices that are full again: they would start full anyway.
func (l *limiter) forget(now time.Time) {
	for key, b := range l.devices {
		l.refill(b, now)
		if b.inflight == 0 && (l.rl.PerSecond <= 0 || b.tokens >= float64(l.rl.Burst)) {
			delete(l.devices, key)
		}
	}
}

// admitCall admits a device call (under lease, "" for none) through the gateway's limiter: it
// returns the function that ends the call, or the refusal to answer with (nothing was sent to
// the device).
func (g *Gateway) admitCall(ctx context.Context, serial, lease string) (func(), *mcpgo.CallToolResult) {
	if g.limiter == nil {
		return func() {}, nil
	}
	done, retry, reason := g.limiter.admit(serial, leaseOwner(ctx, lease))
	if done != nil {
		return done, nil
	}
	ms := max(1, (retry + time.Millisecond - 1).Milliseconds()) // round up: retrying early only fails again
	var msg string
	switch reason {
	case reasonQueue:
		msg = fmt.Sprintf("rate limited: device %s already has %d calls waiting or running through this gateway (the most it allows); retry after %d ms, or use another device",
			serial, g.limiter.rl.MaxWaiting, ms)
	default:
		msg = fmt.Sprintf("rate limited: device %s allows %s calls/s (burst %d) through this gateway; retry after %d ms",
			serial, strconv.FormatFloat(g.limiter.rl.PerSecond, 'f', -1, 64), g.limiter.rl.Burst, ms)
	}
	res := g.deny(ctx, denial{reason: reason, serial: serial}, msg)
	res.Meta = mcpgo.NewMetaFromMap(map[string]any{"retryAfterMs": ms})
	return nil, res
}
