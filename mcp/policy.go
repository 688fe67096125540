package mcp

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/yamlfile"
)

// Policy says who may use the front door: each principal has a bearer token, the device tags
// it may use and the tools it may call. A gateway without a policy serves everyone as the
// principal "anonymous" with every tool and device. The format is in docs/auth.md.
type Policy struct {
	principals []*Principal
}

// Principal is an authenticated caller.
type Principal struct {
	// Name names the caller in leases, task records and refusals.
	Name string
	// Tags are the device tags it may use: a device with any of them; empty: every device.
	Tags []string
	// ToolRule is the tools entry as written in the policy, quoted by refusals.
	ToolRule []string
	// Operator may abort the task of a device another principal holds (on its devices);
	// others may abort only the tasks of devices they hold themselves.
	Operator bool
	// Share is its weight in the devices' queues and its places in each node's queues;
	// MaxDevices bounds the leases it holds at once across the farm (0: no bound). See quota.go.
	Share      broker.Share
	MaxDevices int

	tools map[string]bool // nil: every tool
	hash  [sha256.Size]byte
}

// anonymous is every caller of a gateway without a policy: today's behaviour, no limits.
var anonymous = &Principal{Name: broker.Anonymous}

// MayCall reports whether the principal may call tool.
func (p *Principal) MayCall(tool string) bool { return p.tools == nil || p.tools[tool] }

// MayUse reports whether the principal may use a device with these tags.
func (p *Principal) MayUse(tags []string) bool {
	return len(p.Tags) == 0 || broker.SharesTag(p.Tags, tags)
}

// toolRule and tagRule quote the rules a refusal names.
func (p *Principal) toolRule() string { return "tools [" + strings.Join(p.ToolRule, " ") + "]" }
func (p *Principal) tagRule() string  { return "tags [" + strings.Join(p.Tags, " ") + "]" }

// Principals returns the names of the policy's principals, in file order.
func (pol *Policy) Principals() []string {
	names := make([]string, len(pol.principals))
	for i, p := range pol.principals {
		names[i] = p.Name
	}
	return names
}

// authenticate returns the principal whose token is token, or nil. Every principal is
// compared, in constant time, so the time taken says nothing about which one (or how much of
// a token) matched.
func (pol *Policy) authenticate(token string) *Principal {
	sum := sha256.Sum256([]byte(token))
	var found *Principal
	for _, p := range pol.principals {
		if subtle.ConstantTimeCompare(sum[:], p.hash[:]) == 1 {
			found = p
		}
	}
	return found
}

// policyFile is the policy as written. Keys are checked strictly: a misspelt key would
// otherwise silently widen or narrow what a token may do.
type policyFile struct {
	Principals []principalEntry `yaml:"principals" json:"principals"`
}

type principalEntry struct {
	Name        string   `yaml:"name" json:"name"`
	TokenSHA256 string   `yaml:"token_sha256" json:"token_sha256"`
	TokenFile   string   `yaml:"token_file" json:"token_file"`
	Token       string   `yaml:"token" json:"token"`
	Tags        []string `yaml:"tags" json:"tags"`
	Tools       []string `yaml:"tools" json:"tools"`
	Operator    bool     `yaml:"operator" json:"operator"`
	Weight      *float64 `yaml:"weight" json:"weight"`
	MaxDevices  int      `yaml:"max_devices" json:"max_devices"`
	MaxQueued   int      `yaml:"max_queued" json:"max_queued"`
}

// Limits of a policy.
const (
	minTokenLen   = 16 // a token given in clear (token, token_file) must be at least this long
	maxTokenLen   = 4096
	maxPrincipals = 10000
	maxWeight     = 100
	maxQuota      = 100000
)

var principalName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)

const policyKeys = "top level: principals; each principal: name, token_sha256 | token_file | token, tags, tools, operator, weight, max_devices, max_queued"

// LoadPolicy reads and validates a policy file (YAML, or JSON). A relative token_file is
// read from the policy file's directory.
func LoadPolicy(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("auth policy: %w", err)
	}
	pol, err := ParsePolicy(data, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("auth policy %s: %w", path, err)
	}
	return pol, nil
}

// ParsePolicy validates a policy given as YAML or JSON; dir is where relative token files are.
// Errors never quote a token.
func ParsePolicy(data []byte, dir string) (*Policy, error) {
	var f policyFile
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			if key, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
				return nil, fmt.Errorf("unknown key %s in the policy (%s)", key, policyKeys)
			}
			return nil, fmt.Errorf("not valid JSON: %w (%s)", err, policyKeys)
		}
	} else {
		// yamlfile names a wrong key or value by its line, with the keys allowed there.
		switch err := yamlfile.Decode(data, &f); {
		case errors.Is(err, yamlfile.ErrEmpty): // "no principals" below
		case errors.Is(err, yamlfile.ErrSyntax):
			return nil, fmt.Errorf("%w (%s)", err, policyKeys)
		case err != nil:
			return nil, fmt.Errorf("in the policy, %w", err)
		}
	}
	if len(f.Principals) == 0 {
		return nil, errors.New("no principals: every call would be refused; add at least one (see docs/auth.md)")
	}
	if len(f.Principals) > maxPrincipals {
		return nil, fmt.Errorf("%d principals; at most %d", len(f.Principals), maxPrincipals)
	}
	tools := toolSets()
	pol := &Policy{}
	names := map[string]bool{}
	owner := map[[sha256.Size]byte]string{}
	for i, e := range f.Principals {
		p, err := e.principal(dir, tools)
		if err != nil {
			if e.Name != "" {
				return nil, fmt.Errorf("principal %q: %w", e.Name, err)
			}
			return nil, fmt.Errorf("principal #%d: %w", i+1, err)
		}
		if names[p.Name] {
			return nil, fmt.Errorf("principal %q appears twice; names must be unique", p.Name)
		}
		names[p.Name] = true
		if other, dup := owner[p.hash]; dup {
			return nil, fmt.Errorf("principals %q and %q have the same token; give each its own, or the gateway cannot tell them apart", other, p.Name)
		}
		owner[p.hash] = p.Name
		pol.principals = append(pol.principals, p)
	}
	return pol, nil
}

// principal validates one entry.
func (e principalEntry) principal(dir string, tools map[string][]string) (*Principal, error) {
	if e.Name == "" {
		return nil, errors.New("name is empty; every principal needs a name (it shows as the holder of its leases)")
	}
	if !principalName.MatchString(e.Name) {
		return nil, errors.New("name must be 1 to 64 letters, digits, '.', '_', '@' or '-', starting with a letter or digit")
	}
	if e.Name == anonymous.Name {
		return nil, errors.New(`"anonymous" names every caller of a gateway without a policy; choose another name`)
	}
	p := &Principal{Name: e.Name, Operator: e.Operator, MaxDevices: e.MaxDevices, Share: broker.Share{MaxQueued: e.MaxQueued}}
	if err := e.checkShares(); err != nil {
		return nil, err
	}
	if e.Weight != nil {
		p.Share.Weight = *e.Weight
	}
	given := 0
	for _, s := range []string{e.TokenSHA256, e.TokenFile, e.Token} {
		if s != "" {
			given++
		}
	}
	if given != 1 {
		return nil, errors.New("give exactly one of token_sha256 (preferred), token_file or token")
	}
	switch {
	case e.TokenSHA256 != "":
		b, err := hex.DecodeString(strings.TrimSpace(e.TokenSHA256))
		if err != nil || len(b) != sha256.Size {
			return nil, errors.New("token_sha256 must be 64 hex digits: the output of 'sha256sum' of the token (docs/auth.md)")
		}
		copy(p.hash[:], b)
	case e.TokenFile != "":
		path := e.TokenFile
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("token_file: %w", err)
		}
		token := strings.TrimSpace(string(b))
		if err := checkToken(token); err != nil {
			return nil, fmt.Errorf("token_file %s: %w", path, err)
		}
		p.hash = sha256.Sum256([]byte(token))
	default:
		if err := checkToken(e.Token); err != nil {
			return nil, fmt.Errorf("token: %w", err)
		}
		p.hash = sha256.Sum256([]byte(e.Token))
	}
	for _, t := range e.Tags {
		if err := checkPrincipalTag(t); err != nil {
			return nil, err
		}
		if !slices.Contains(p.Tags, t) {
			p.Tags = append(p.Tags, t)
		}
	}
	if len(e.Tools) == 0 {
		p.ToolRule = []string{"all"}
		return p, nil
	}
	p.ToolRule = e.Tools
	p.tools = map[string]bool{}
	for _, name := range e.Tools {
		set, ok := tools[name]
		if !ok {
			return nil, fmt.Errorf("tools: unknown tool or profile %q; give tool names from tools/list or a profile: %s",
				name, strings.Join(policyProfiles(), ", "))
		}
		if set == nil { // all
			p.tools = nil
			return p, nil
		}
		for _, t := range set {
			p.tools[t] = true
		}
	}
	return p, nil
}

// checkShares validates the fair-share keys.
func (e principalEntry) checkShares() error {
	if w := e.Weight; w != nil && !(*w > 0 && *w <= maxWeight) { // also refuses NaN
		return fmt.Errorf("weight must be above 0 and at most %d (its share of a busy device's turns; 1 if not given), got %v", maxWeight, *w)
	}
	for _, q := range []struct {
		key string
		v   int
	}{{"max_devices", e.MaxDevices}, {"max_queued", e.MaxQueued}} {
		if q.v < 0 || q.v > maxQuota {
			return fmt.Errorf("%s must be between 0 (no bound) and %d, got %d", q.key, maxQuota, q.v)
		}
	}
	return nil
}

// checkToken rejects tokens a policy should not hold: short ones are guessable. Errors do not
// quote the token.
func checkToken(token string) error {
	switch {
	case len(token) < minTokenLen:
		return fmt.Errorf("the token is %d bytes long; use at least %d (e.g. 'openssl rand -hex 32')", len(token), minTokenLen)
	case len(token) > maxTokenLen:
		return fmt.Errorf("the token is %d bytes long; at most %d", len(token), maxTokenLen)
	case strings.ContainsFunc(token, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return errors.New("the token contains spaces or control characters; an HTTP header cannot carry it")
	}
	return nil
}

// profileReadOnly names every tool whose readOnlyHint is true, but those that hold a device
// (holdsDevice).
const profileReadOnly = "readonly"

// holdsDevice are read-only tools that keep a device busy for as long as the caller asks:
// the sleeps change nothing, but for up to an hour no one else can use the device, so a
// read-only principal (a dashboard) does not get them from the profile. A policy may still
// name them.
var holdsDevice = map[string]bool{"sleep": true, "sleep_ms": true, "sleep_random": true}

// toolSets maps every name a policy's tools may give to the tools it stands for: each tool
// of the catalog to itself, each profile to its tools, "all" to nil.
func toolSets() map[string][]string {
	sets := map[string][]string{"all": nil}
	var ro []string
	for _, d := range catalog() {
		sets[d.tool.Name] = []string{d.tool.Name}
		if h := d.tool.Annotations.ReadOnlyHint; h != nil && *h && !holdsDevice[d.tool.Name] {
			ro = append(ro, d.tool.Name)
		}
	}
	sets[profileReadOnly] = ro
	for name := range profiles {
		names, _ := SelectTools(name)
		sets[name] = names
	}
	return sets
}

// policyProfiles lists the profile names a policy accepts.
func policyProfiles() []string {
	return append(ProfileNames(), profileReadOnly)
}
