package tools

import (
	"encoding/json"
	"reflect"
	"strings"
)

// secretSource is an argument struct that holds secrets beyond its own tagged fields (sequence's
// steps hold other tools' arguments).
type secretSource interface{ secrets() []string }

// holdsSecrets says whether t's arguments can hold a secret, so that tasks of the others skip
// decoding their arguments a second time (Op.Secrets is nil for them).
func (t Tool) holdsSecrets() bool {
	if t.Args == nil || t.Args.Kind() != reflect.Struct {
		return false
	}
	if reflect.PointerTo(t.Args).Implements(reflect.TypeFor[secretSource]()) {
		return true
	}
	for i := range t.Args.NumField() {
		if f := t.Args.Field(i); f.Tag.Get("secret") == "true" && f.Type.Kind() == reflect.String {
			return true
		}
	}
	return false
}

// Secrets returns the values of the secret arguments in args (string fields tagged
// `secret:"true"`, e.g. the text input types): the caller gets them back in its answer, but the
// task record and the event stream must not keep them (broker.TaskResult.Record, where
// redact.Secrets says which places hold them: a result's field that is the value, whatever its
// length, so no result needs its own tag).
func (t Tool) Secrets(args json.RawMessage) []string {
	if t.Args == nil || t.Args.Kind() != reflect.Struct || len(args) == 0 {
		return nil
	}
	v := reflect.New(t.Args)
	// Lenient: a record of a refused call holds no data, but its error may quote the text.
	_ = json.Unmarshal(args, v.Interface())
	var out []string
	if s, ok := v.Interface().(secretSource); ok {
		out = s.secrets()
	}
	for i := range t.Args.NumField() {
		f := t.Args.Field(i)
		if f.Tag.Get("secret") == "true" && f.Type.Kind() == reflect.String {
			if s := v.Elem().Field(i).String(); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// secrets are the secret arguments of a sequence's steps, in either form (args, or the
// PhysiClaw arg), checked or not: a refused sequence's record must not keep them either.
func (a *SequenceArgs) secrets() []string {
	var out []string
	for _, s := range append(a.Steps, derefSteps(a.Step1, a.Step2, a.Step3, a.Step4, a.Step5)...) {
		name := strings.ToLower(strings.TrimSpace(s.ToolName))
		tool, ok := Lookup(name)
		if !ok || tool.Step == NoStep {
			continue
		}
		out = append(out, tool.Secrets(s.Args)...)
		if present(s.Arg) {
			if raw, err := compactArg(name, sequenceTools()[name].arg, s.Arg); err == nil {
				out = append(out, tool.Secrets(raw)...)
			}
		}
	}
	return out
}

func derefSteps(steps ...*SequenceStep) []SequenceStep {
	var out []SequenceStep
	for _, s := range steps {
		if s != nil {
			out = append(out, *s)
		}
	}
	return out
}
