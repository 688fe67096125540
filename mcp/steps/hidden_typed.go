package steps

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/corral-farm/corral/nodes/tools"
)

// hiddenTyped says whose secrets a failed step's message quotes, when the run hides them
// (Options.Hide): a mark alone does not say which step typed the text it stands for, and a long
// replay types many. It names each step by number, name and tool, the argument and the text's
// length, never the text. raw is what the message quotes before hiding; upTo the failed step's
// index (later steps have not run). It is "" when the message hides no step's secret.
func (p *Plan) hiddenTyped(upTo int, raw ...string) string {
	if p.opts.Hide == nil {
		return ""
	}
	var named []string
	for _, pc := range p.calls {
		if pc.step.Index > upTo {
			break
		}
		for _, secret := range callSecrets(pc.tool, pc.args) {
			if !hides(p.opts.Hide, raw, secret) {
				continue
			}
			who := fmt.Sprintf("step %d's %s (%s", pc.step.Index, argPath(pc.args, secret, ""), pc.tool)
			if pc.step.Name != "" {
				who += fmt.Sprintf(" %q", pc.step.Name)
			}
			named = append(named, fmt.Sprintf("%s, %d characters)", who, utf8.RuneCountInString(secret)))
		}
	}
	if len(named) == 0 {
		return ""
	}
	return "; the secret text hidden here is " + strings.Join(slices.Compact(named), ", ")
}

// hides says whether hide takes secret out of one of texts: a secret left standing (a letter
// inside the words that hold it) is no secret the message hides.
func hides(hide func(string) string, texts []string, secret string) bool {
	for _, t := range texts {
		if n := strings.Count(t, secret); n > 0 && strings.Count(hide(t), secret) < n {
			return true
		}
	}
	return false
}

// callSecrets are the secret arguments of a call to a tool of this corral (the text input types,
// a password): those its task record keeps out too.
func callSecrets(tool string, args map[string]any) []string {
	t, ok := tools.Lookup(tool)
	if !ok {
		return nil
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil
	}
	return t.Secrets(raw)
}

// argPath is where in args the string secret stands (text, steps[1].args.text), "text" when
// it stands nowhere as a whole value (an arg's text that a sequence compacts).
func argPath(v any, secret, at string) string {
	switch v := v.(type) {
	case string:
		if v == secret {
			return at
		}
	case []any:
		for i, x := range v {
			if p := argPath(x, secret, fmt.Sprintf("%s[%d]", at, i+1)); p != "" {
				return p
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if p := argPath(v[k], secret, strings.TrimPrefix(at+"."+k, ".")); p != "" {
				return p
			}
		}
	}
	if at == "" {
		return "text"
	}
	return ""
}
