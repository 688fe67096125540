package tools

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mustParse(t *testing.T, yaml string) Passcodes {
	t.Helper()
	p, err := ParsePasscodes([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParsePasscodes(t *testing.T) {
	p := mustParse(t, "\"*\": \"0012\"\nemulator-5554: 2468\n192.168.1.5:5555: 'correct-horse'\n")
	for serial, want := range map[string]string{"emulator-5554": "2468", "192.168.1.5:5555": "correct-horse", "other": "0012"} {
		if got, ok := p.Lookup(serial); !ok || got.Reveal() != want {
			t.Errorf("Lookup(%s) = %v, %v", serial, got.Reveal(), ok)
		}
	}
	if p.Len() != 3 {
		t.Errorf("Len = %d", p.Len())
	}
	if _, ok := mustParse(t, "").Lookup("x"); ok {
		t.Error("an empty file configures a passcode")
	}
	for in, want := range map[string]string{
		"- 1234":                   "line 1: want a map",
		"a: [1, 2]":                "line 1: the passcode of \"a\" must be one value",
		"a:":                       "must be one value",
		"a: \"\"":                  "must be 1 to 64 characters",
		"a: \"12 34\"":             "printable ASCII without spaces",
		"a: \"1\"\nb: \"2\"\na: 3": "line 3: \"a\" is given twice",
		"a: \"1\n":                 "not valid YAML",
		"a: {b: 1}":                "must be one value",
	} {
		_, err := ParsePasscodes([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParsePasscodes(%q) = %v, want %q", in, err, want)
		}
	}
	_, err := LoadPasscodes(filepath.Join(t.TempDir(), "missing.yaml"))
	if err == nil || !strings.Contains(err.Error(), "passcodes file") {
		t.Errorf("missing file: %v", err)
	}
	path := filepath.Join(t.TempDir(), "p.yaml")
	if err := os.WriteFile(path, []byte("x: \"9 9\""), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPasscodes(path); err == nil || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "9 9") {
		t.Errorf("bad file: %v", err)
	}
}

// Secrets and passcode books print, log and encode as [redacted], whatever the way.
func TestSecretsNeverPrint(t *testing.T) {
	p := mustParse(t, `"*": "31415926"`)
	s, _ := p.Lookup("x")
	var buf strings.Builder
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	log.Info("x", "secret", s, "book", p, "any", []any{s, p})
	slog.New(slog.NewTextHandler(&buf, nil)).Info("x", "secret", s, "book", p)
	b, _ := json.Marshal(map[string]any{"s": s, "p": p, "list": []Secret{s}})
	out := buf.String() + string(b) + fmt.Sprintf("%v %+v %#v %s %q %x %d", s, s, s, s, s, s, s) +
		fmt.Sprintf("%v %+v %#v %s", p, p, p, p) + fmt.Sprint(struct{ S Secret }{s}, map[string]Secret{"a": s}, &s)
	if strings.Contains(out, "31415926") || !strings.Contains(out, "[redacted]") {
		t.Fatalf("a secret printed: %s", out)
	}
}

// FuzzParsePasscodes: ParsePasscodes never panics and keeps only valid passcodes.
func FuzzParsePasscodes(f *testing.F) {
	for _, s := range []string{`"*": "1234"`, "a: 1\nb: \"x y\"", "- 1", "a: [1]", "a: \"1\"\na: 2", "{a: &x 1, b: *x}", "a: !!binary aGk=", "\xff: 1"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePasscodes(data)
		if err != nil {
			if p.Len() != 0 {
				t.Fatal("passcodes returned with an error")
			}
			return
		}
		for serial, s := range p.bySerial {
			if serial == "" || checkPasscode(s.Reveal()) != nil {
				t.Fatalf("invalid entry kept for %q", serial)
			}
		}
	})
}
