package mcp

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"slices"
)

// principalKeys key what a gateway hands out statelessly: protocol session ids (sessions.go)
// and the console's login cookie, CSRF tokens and sealed lease cookies (console.go). Every
// gateway of the farm derives the same keys from the policy, with no state shared.
//
// Each principal's key comes from that principal's own token hash only, so that a change to
// the policy ends only what the changed principal was given: adding a principal, rotating or
// removing another's token, or reordering the file keeps everyone else's sessions and logins
// (a key over every token hash ended them all). No caller learns a key from what the gateway
// answers; a principal could derive its own from its token, which lets it mint nothing it could
// not already get with that token (its own session ids and logins).
type principalKeys struct {
	// anonymous keys a gateway without a policy: its one principal, anonymous, is everyone,
	// so its ids and cookies bind nothing there and only need to be well formed.
	anonymous []byte
	// byName is each principal's key; nil without a policy.
	byName map[string][]byte
	// farm is a key over every token hash, in no particular order: it keys what belongs to no
	// principal yet (the CSRF token of the console's login form, before a login).
	farm []byte
	// retired is the one key of every id and cookie of Corral before per-principal keys: the
	// label and every token hash, in the file's order (nil without a policy, where it was
	// anonymous). What it keyed is still taken, so that sessions and logins opened on a gateway
	// of that version survive a rolling upgrade; any change to the policy ends them, as it did.
	retired []byte
	// issueRetired issues ids and cookies under retired too (SessionKeysFarm), so that gateways
	// of that version, still serving during a roll, take them.
	issueRetired bool
}

// SessionKeys chooses the key a gateway issues protocol session ids and console cookies under
// (Options.SessionKeys). Whichever it issues, it takes both.
type SessionKeys string

const (
	// SessionKeysPrincipal issues each principal's under its own key: a policy change ends only
	// what the changed principal was given. Gateways of Corral before per-principal keys refuse
	// them (their clients initialize again).
	SessionKeysPrincipal SessionKeys = "principal"
	// SessionKeysFarm issues them under the farm-wide key of Corral before per-principal keys,
	// which its gateways take: for a rolling upgrade from that version, until it is gone
	// (docs/helm.md, Upgrading). Any policy change ends them all.
	SessionKeysFarm SessionKeys = "farm"
)

// ParseSessionKeys reads --session-keys: principal (or empty) or farm.
func ParseSessionKeys(s string) (SessionKeys, error) {
	switch k := SessionKeys(s); k {
	case "", SessionKeysPrincipal:
		return SessionKeysPrincipal, nil
	case SessionKeysFarm:
		return k, nil
	}
	return "", fmt.Errorf("%q: give principal (each principal's own key, the default) or farm (the key of Corral "+
		"before per-principal keys, only while gateways of that version still serve: docs/helm.md, Upgrading)", s)
}

// sessionKeyLabel is the label every key is derived under.
const sessionKeyLabel = "corral mcp session id v1"

func newPrincipalKeys(pol *Policy, issue SessionKeys) principalKeys {
	k := principalKeys{anonymous: labelled(sessionKeyLabel)}
	k.farm = k.anonymous
	if pol == nil {
		return k
	}
	k.byName = make(map[string][]byte, len(pol.principals))
	hashes := make([][]byte, 0, len(pol.principals))
	old := sha256.New()
	old.Write([]byte(sessionKeyLabel))
	for _, p := range pol.principals {
		k.byName[p.Name] = principalKey(p)
		hashes = append(hashes, p.hash[:])
		old.Write(p.hash[:])
	}
	k.retired, k.issueRetired = old.Sum(nil), issue == SessionKeysFarm
	slices.SortFunc(hashes, bytes.Compare) // the file's order changes no key
	m := sha256.New()
	m.Write([]byte(sessionKeyLabel + " farm"))
	for _, h := range hashes {
		m.Write(h)
	}
	k.farm = m.Sum(nil)
	return k
}

// labelled is a key from a label alone.
func labelled(label string) []byte {
	sum := sha256.Sum256([]byte(label))
	return sum[:]
}

// principalKey is p's key: its name and token hash, under the label.
func principalKey(p *Principal) []byte {
	m := hmac.New(sha256.New, []byte(sessionKeyLabel))
	m.Write([]byte(p.Name))
	m.Write([]byte{0})
	m.Write(p.hash[:])
	return m.Sum(nil)
}

// of returns principal's key; false for a name the policy does not have (no id or cookie of
// it is valid).
func (k principalKeys) of(principal string) ([]byte, bool) {
	if k.byName == nil {
		return k.anonymous, true
	}
	key, ok := k.byName[principal]
	return key, ok
}

// issuing returns the key principal's ids and cookies are issued under ("": what belongs to
// no principal yet), and the other key they are taken under too (nil: none); false for a
// name the policy does not have.
func (k principalKeys) issuing(principal string) (issue, other []byte, ok bool) {
	own := k.farm
	if principal != "" {
		if own, ok = k.of(principal); !ok {
			return nil, nil, false
		}
	}
	if k.retired == nil {
		return own, nil, true
	}
	if k.issueRetired {
		return k.retired, own, true
	}
	return own, k.retired, true
}
