package main

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/corral-farm/corral/internal/redact"
	"github.com/corral-farm/corral/mcp/steps"
	"github.com/corral-farm/corral/nodes/tools"
)

// A run's reports go where CI keeps its artifacts, read by more people than hold the devices:
// the lease handles a run used (its steps' lease arguments, acquire_device's answer) are the
// holders' secrets, and so are the secret arguments its steps sent (typed text, a password, a
// URL's user:password@), which a tool may also echo. All are left out of them.

// redactedMark stands for a secret left out.
const redactedMark = "…(redacted)"

// redactedHandle stands for a handle left out: its kind, not its secret.
func redactedHandle(h string) string {
	kind, _, ok := strings.Cut(h, "_")
	if !ok || kind != "lease" && kind != "group" {
		return redactedMark
	}
	return kind + "_" + redactedMark
}

// redactLeases replaces the lease handles in s.
func redactLeases(s string) string {
	return redact.LeaseHandles(s, redactedHandle)
}

// stepSecrets are the secret values among a call's arguments: those nodes/tools marks secret
// (Tool.Secrets, sequence's steps too), and the password (or token) of every URL among them.
// A tool this corral does not know has no secret arguments it could name.
func stepSecrets(tool string, args map[string]any) []string {
	var out []string
	if t, ok := tools.Lookup(tool); ok && len(args) > 0 {
		if raw, err := json.Marshal(args); err == nil {
			out = t.Secrets(raw)
		}
	}
	walkStrings(args, func(s string) string {
		if p := urlSecret(s); p != "" {
			out = append(out, p)
		}
		return s
	})
	return out
}

// urlSecret is the password of a URL's user:password@ (the whole user part for a token@), ""
// for text that is no URL or has none.
func urlSecret(s string) string {
	if !strings.Contains(s, "://") {
		return ""
	}
	_, info, _, ok := redact.SplitUserinfo(s)
	if !ok {
		return ""
	}
	if _, pw, hasPW := strings.Cut(info, ":"); hasPW {
		return pw
	}
	return info
}

// walkStrings replaces every string in v (an argument value: maps, lists) by fn's answer, in
// place.
func walkStrings(v any, fn func(string) string) any {
	switch v := v.(type) {
	case string:
		return fn(v)
	case []any:
		for i := range v {
			v[i] = walkStrings(v[i], fn)
		}
	case map[string]any:
		for k := range v {
			v[k] = walkStrings(v[k], fn)
		}
	}
	return v
}

// cloneArgs copies args deeply enough for walkStrings to change the copy alone.
func cloneArgs(v any) any {
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i := range v {
			out[i] = cloneArgs(v[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = cloneArgs(x)
		}
		return out
	}
	return v
}

// redactor takes a run's secrets out of what corral run shows: its reports, its table, its log.
// It knows every step's secrets before any runs, since a later step may show an earlier one's
// (the clipboard read back, a page that shows the password typed). Where a secret is taken
// out, and where not (a letter typed stays in the words that hold it): redact.Secrets, the
// rule task records keep too. The serials the run names are never taken apart by a secret.
type redactor struct {
	secrets redact.Secrets
}

// newRedactor knows the secrets of doc's steps (those whose call converts: one that does not
// never runs) and the serials they and serial (the run's --serial) name.
func newRedactor(doc *steps.Document, serial string) *redactor {
	r := &redactor{secrets: redact.NewSecrets(redactedMark, nil, serial, doc.Serial)}
	for _, s := range doc.Steps {
		if req, err := s.Request(); err == nil {
			r.secrets = r.secrets.With(stepSecrets(req.Params.Name, req.GetArguments()), argSerial(req.GetArguments()))
		}
	}
	return r
}

// argSerial is the serial a call's arguments name, "" for none.
func argSerial(args map[string]any) string {
	s, _ := args["serial"].(string)
	return s
}

// text is s without the lease handles and the secrets. The handles go first, whole: a secret
// that runs into one must not leave the rest of the handle shown.
func (r *redactor) text(s string) string {
	return r.secrets.Hide(redactLeases(s))
}

// err is e with the secrets taken out of its text; e itself when there were none.
func (r *redactor) err(e error) error {
	if e == nil {
		return nil
	}
	if msg := r.text(e.Error()); msg != e.Error() {
		return errors.New(msg)
	}
	return e
}

// result is res without secrets: in its arguments (a secret argument shows the mark, a URL
// its user with redact.Mark for the password, the lease its kind), its text, error, reason and
// expected text.
func (r *redactor) result(res steps.Result) steps.Result {
	if own := stepSecrets(res.Tool, res.Arguments); len(own) > 0 || argSerial(res.Arguments) != "" {
		r = &redactor{secrets: r.secrets.With(own, argSerial(res.Arguments))}
	}
	if len(res.Arguments) > 0 {
		args := cloneArgs(res.Arguments).(map[string]any)
		walkStrings(args, func(s string) string {
			if strings.Contains(s, "://") {
				s = redact.URL(s)
			}
			return r.text(s)
		})
		if h, ok := res.Arguments["lease"].(string); ok && h != "" {
			args["lease"] = redactedHandle(h)
		}
		res.Arguments = args
	}
	// expect too: corral tasks export sets it to the text the agent typed.
	res.Text, res.Error, res.Reason, res.Expect = r.text(res.Text), r.text(res.Error), r.text(res.Reason), r.text(res.Expect)
	return res
}

// report takes the secrets out of every step of rep.
func (r *redactor) report(rep *steps.Report) {
	for i := range rep.Steps {
		rep.Steps[i] = r.result(rep.Steps[i])
	}
}

// callError is corral call's error without the secret arguments it sent, which a tool's
// refusal may quote (a package name, a URL): an error goes to stderr, and a CI log keeps it.
// The answer of a call that passed is the caller's own, and is printed as it came.
func callError(tool string, args map[string]any, err error) error {
	if err == nil {
		return nil
	}
	if msg := redact.NewSecrets(redactedMark, stepSecrets(tool, args), argSerial(args)).Hide(err.Error()); msg != err.Error() {
		return errors.New(msg)
	}
	return err
}
