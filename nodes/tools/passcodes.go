package tools

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"

	"gopkg.in/yaml.v3"
)

// MaxPasscodeLen bounds a passcode: a PIN or a password typed on the lock screen.
const MaxPasscodeLen = 64

// AnySerial is the Passcodes key for every device without an entry of its own.
const AnySerial = "*"

// Secret is a passcode. It prints, logs and encodes as [redacted], whatever the verb or
// encoder, so that it cannot reach a log line, an error, a result or a task record by accident;
// Reveal gives the text to type.
type Secret struct{ s string }

const redacted = "[redacted]"

// Reveal returns the passcode itself: only for typing it on the device.
func (s Secret) Reveal() string { return s.s }

func (Secret) String() string                  { return redacted }
func (Secret) GoString() string                { return redacted }
func (Secret) LogValue() slog.Value            { return slog.StringValue(redacted) }
func (Secret) MarshalJSON() ([]byte, error)    { return []byte(`"` + redacted + `"`), nil }
func (Secret) MarshalText() ([]byte, error)    { return []byte(redacted), nil }
func (s Secret) Format(f fmt.State, verb rune) { _, _ = f.Write([]byte(redacted)) }

// Passcodes are the lock screen passcodes a node knows, by device serial, with AnySerial ("*")
// for every other device. Like Secret, they never print.
type Passcodes struct{ bySerial map[string]Secret }

// Lookup returns the passcode configured for serial: its own, else the "*" one.
func (p Passcodes) Lookup(serial string) (Secret, bool) {
	if s, ok := p.bySerial[serial]; ok {
		return s, true
	}
	s, ok := p.bySerial[AnySerial]
	return s, ok
}

// own returns serial's own entry, without the "*" default.
func (p Passcodes) own(serial string) (Secret, bool) {
	s, ok := p.bySerial[serial]
	return s, ok
}

// Len counts the entries.
func (p Passcodes) Len() int { return len(p.bySerial) }

func (p Passcodes) String() string {
	return fmt.Sprintf("passcodes for %d devices [redacted]", len(p.bySerial))
}
func (p Passcodes) GoString() string              { return p.String() }
func (p Passcodes) Format(f fmt.State, verb rune) { _, _ = f.Write([]byte(p.String())) }
func (p Passcodes) LogValue() slog.Value          { return slog.StringValue(p.String()) }

// LoadPasscodes reads a passcodes file once (see ParsePasscodes). Its errors name the file and
// the line, never a passcode.
func LoadPasscodes(path string) (Passcodes, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Passcodes{}, fmt.Errorf("passcodes file: %w", err)
	}
	p, err := ParsePasscodes(b)
	if err != nil {
		return Passcodes{}, fmt.Errorf("passcodes file %s: %w", path, err)
	}
	return p, nil
}

// ParsePasscodes parses a YAML map of device serial to passcode, "*" being the default:
//
//	"*": "111111"
//	emulator-5554: "2468"
//	R58M12345AB: "correct-horse"
//
// A passcode is 1 to 64 printable ASCII characters without spaces: the digits of a PIN, or a
// password. It is taken exactly as written (0012 stays 0012; quoting is still wise). Errors
// say where the problem is, never what a passcode is.
func ParsePasscodes(data []byte) (Passcodes, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		// yaml's syntax errors quote no values, but its line may hold one: say only where.
		return Passcodes{}, fmt.Errorf("not valid YAML (%s); write one `serial: \"passcode\"` per line", yamlWhere(err))
	}
	out := Passcodes{bySerial: map[string]Secret{}}
	if len(doc.Content) == 0 {
		return out, nil // an empty file configures nothing
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return Passcodes{}, fmt.Errorf("line %d: want a map of device serial to passcode, e.g. `\"*\": \"1234\"`", m.Line)
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Value == "" {
			return Passcodes{}, fmt.Errorf("line %d: a key must be a device serial or \"*\"", k.Line)
		}
		serial := k.Value
		if len(serial) > 256 {
			return Passcodes{}, fmt.Errorf("line %d: a serial is at most 256 bytes", k.Line)
		}
		if _, dup := out.bySerial[serial]; dup {
			return Passcodes{}, fmt.Errorf("line %d: %s is given twice", k.Line, strconv.Quote(serial))
		}
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			return Passcodes{}, fmt.Errorf("line %d: the passcode of %s must be one value, e.g. \"1234\"", v.Line, strconv.Quote(serial))
		}
		if err := checkPasscode(v.Value); err != nil {
			return Passcodes{}, fmt.Errorf("line %d: the passcode of %s %w", v.Line, strconv.Quote(serial), err)
		}
		out.bySerial[serial] = Secret{s: v.Value}
	}
	return out, nil
}

// checkPasscode says what is wrong with a passcode, without repeating it.
func checkPasscode(s string) error {
	if s == "" || len(s) > MaxPasscodeLen {
		return fmt.Errorf("must be 1 to %d characters", MaxPasscodeLen)
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return errors.New("must be printable ASCII without spaces (digits for a PIN)")
		}
	}
	return nil
}

// yamlWhere keeps the "line N" of a YAML error and drops the rest, which may quote the file.
func yamlWhere(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return "wrong types"
	}
	msg := err.Error()
	var line int
	for i := 0; i+5 < len(msg); i++ {
		if msg[i:i+5] == "line " {
			if n, err := fmt.Sscanf(msg[i+5:], "%d", &line); n == 1 && err == nil {
				return fmt.Sprintf("at line %d", line)
			}
		}
	}
	return "syntax error"
}
