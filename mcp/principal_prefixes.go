package mcp

import (
	"sync"

	"github.com/corral-farm/corral/broker"
)

// principalPrefixes keeps the key prefix of each principal whose calls a gateway keyed
// (broker.PrincipalPrefix): its tag is a hash, computed on every call it cost each tool call
// some allocations more (a call keys its latest tasks twice, and its session's entry, under
// its principal).
type principalPrefixes struct {
	mu sync.Mutex
	of map[string]string // principal → "p.<tag>."
}

// maxPrincipalPrefixes bounds the prefixes kept: a policy's principals, with room to spare;
// past it they start over.
const maxPrincipalPrefixes = 4096

// under keys id under principal, as broker.UnderPrincipal does.
func (p *principalPrefixes) under(principal, id string) string {
	return p.prefix(principal) + id
}

// prefix is principal's key prefix, computed on its first call only.
func (p *principalPrefixes) prefix(principal string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s, ok := p.of[principal]; ok {
		return s
	}
	if p.of == nil || len(p.of) >= maxPrincipalPrefixes {
		p.of = map[string]string{}
	}
	s := broker.PrincipalPrefix(principal)
	p.of[principal] = s
	return s
}
