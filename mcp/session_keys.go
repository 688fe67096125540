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
// gateway of the farm derives the same keys from the policy and the farm's gateway secret
// (broker.GatewaySecret), with no other state shared.
//
// Each principal's key comes from the secret and that principal's own token hash only, so that
// a change to the policy ends only what the changed principal was given: adding a principal,
// rotating or removing another's token, or reordering the file keeps everyone else's sessions
// and logins (a key over every token hash ended them all). The secret is what no reader of the
// policy file has: the file may hold token hashes (token_sha256), and keys from those alone let
// anyone who read it mint any principal's login cookie and open its sealed lease cookies. No
// caller learns a key from what the gateway answers.
type principalKeys struct {
	// anonymous keys a gateway without a policy: its one principal, anonymous, is everyone,
	// so its ids and cookies bind nothing there and only need to be well formed (a label alone,
	// no secret: such a gateway reads none).
	anonymous []byte
	// byName is each principal's key; nil without a policy.
	byName map[string][]byte
	// farm is a key over the secret and every token hash, in no particular order: it keys what
	// belongs to no principal yet (the CSRF token of the console's login form, before a login).
	farm []byte
	// retired is the one key of every id and cookie of Corral before per-principal keys: the
	// label and every token hash, in the file's order. It holds no secret, so anyone who read
	// the policy can compute it: it is used with SessionKeysFarm only (nil otherwise), whose
	// gateways issue and take it during a roll from that version, and take nothing else.
	retired []byte
	// issueRetired issues ids and cookies under retired (SessionKeysFarm), so that gateways of
	// that version, still serving during a roll, take them.
	issueRetired bool
}

// SessionKeys chooses the key a gateway issues protocol session ids and console cookies under
// (Options.SessionKeys).
type SessionKeys string

const (
	// SessionKeysPrincipal issues and takes each principal's under its own key (with the farm's
	// gateway secret): a policy change ends only what the changed principal was given. Gateways
	// of older Corral versions refuse them, and they theirs (their clients initialize again).
	SessionKeysPrincipal SessionKeys = "principal"
	// SessionKeysFarm issues them under the farm-wide key of Corral before per-principal keys,
	// which its gateways take, and takes that key's and the principal's own: for a rolling
	// upgrade from that version, until it is gone (docs/helm.md, Upgrading). That key holds no
	// secret: while this is set, whoever read the policy file can mint ids and logins.
	// Any policy change ends them all.
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

// newPrincipalKeys are the keys of pol's principals under the farm's gateway secret; a policy
// needs one (New reads it, or makes one of its own), a gateway without a policy uses none.
func newPrincipalKeys(pol *Policy, issue SessionKeys, secret []byte) principalKeys {
	k := principalKeys{anonymous: labelled(sessionKeyLabel)}
	k.farm = k.anonymous
	if pol == nil {
		return k
	}
	if len(secret) == 0 {
		panic("mcp: a policy's session keys need the farm's gateway secret") // New always gives one
	}
	root := secretKey(secret)
	k.byName = make(map[string][]byte, len(pol.principals))
	hashes := make([][]byte, 0, len(pol.principals))
	old := sha256.New()
	old.Write([]byte(sessionKeyLabel))
	for _, p := range pol.principals {
		k.byName[p.Name] = principalKey(root, p)
		hashes = append(hashes, p.hash[:])
		old.Write(p.hash[:])
	}
	if issue == SessionKeysFarm {
		k.retired, k.issueRetired = old.Sum(nil), true
	}
	slices.SortFunc(hashes, bytes.Compare) // the file's order changes no key
	m := hmac.New(sha256.New, root)
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

// secretKey is the root of a policy's keys: the farm's gateway secret, under the label. Every
// key of a principal and of the farm comes from it, so none is known without the secret.
func secretKey(secret []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(sessionKeyLabel))
	return m.Sum(nil)
}

// principalKey is p's key: its name and token hash, under root (secretKey).
func principalKey(root []byte, p *Principal) []byte {
	m := hmac.New(sha256.New, root)
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
