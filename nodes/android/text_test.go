package android

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/android/adbsim"
	"github.com/corral-farm/corral/nodes/tools"
)

// typedSince is the text the phone took from its input log's entry before on: the texts of its
// "text" entries, joined.
func typedSince(t *testing.T, dev *adbsim.Device, before int) string {
	t.Helper()
	var typed strings.Builder
	for _, line := range dev.Phone().InputLog()[before:] {
		q, ok := strings.CutPrefix(line, "text ")
		if !ok {
			continue
		}
		s, err := strconv.Unquote(q)
		if err != nil {
			t.Fatalf("input log line %q: %v", line, err)
		}
		typed.WriteString(s)
	}
	return typed.String()
}

// Plain ASCII holding "%s" is typed by `input text` with the phone's own keyboard: the
// simulated `input text` turns "%s" into a space as Android does, so the text is cut between
// '%' and 's' and lands unchanged. No ADBKeyboard is needed or asked about.
func TestInputTextPercentSWithPhoneKeyboard(t *testing.T) {
	dev, d := newDevice(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := d.LaunchApp(ctx, "com.corral.notes"); err != nil {
		t.Fatal(err)
	}
	if err := d.ClearApp(ctx, "com.corral.notes"); err != nil {
		t.Fatal(err)
	}
	if err := d.LaunchApp(ctx, "com.corral.notes"); err != nil {
		t.Fatal(err)
	}
	if ime := dev.IME(); ime == adbKeyboard {
		t.Fatalf("the phone starts with %s, want its own keyboard", ime)
	}
	got := newCommands(t, dev, func() error { return d.InputText(ctx, "50%sale") })
	if want := []string{`input text '50%'`, `input text 'sale'`}; !slices.Equal(got, want) {
		t.Errorf("commands %q, want %q", got, want)
	}
	if note := dev.Phone().Note(); note != "50%sale" {
		t.Errorf("the note holds %q, want %q", note, "50%sale")
	}
	// The simulator is honest: one `input text` argument holding "%s" types a space.
	if _, err := d.shell(ctx, "input text", "input text 'x%sy'"); err != nil {
		t.Fatal(err)
	}
	if note := dev.Phone().Note(); note != "50%salex y" {
		t.Errorf("after `input text 'x%%sy'` the note holds %q, want %q", note, "50%salex y")
	}
}

// Text `input text` cannot type is refused with the phone's own keyboard active, and the
// refusal names the character that needs ADBKeyboard instead of calling the text non-ASCII.
// It is a refusal for how the phone is set up: the input tool answers unsupported, not
// driver_error, which counts against the device and feeds the tool-error alert.
func TestInputTextRefusalNamesTheCharacter(t *testing.T) {
	_, d := newDevice(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for text, char := range map[string]string{
		"café":      `'é' (U+00E9)`,
		"a\tb":      `'\t' (U+0009)`,
		"50%sale 中": `'中' (U+4E2D)`,
	} {
		err := d.InputText(ctx, text)
		if !errors.Is(err, ErrNoADBKeyboard) {
			t.Fatalf("%q: %v, want ErrNoADBKeyboard", text, err)
		}
		args, _ := json.Marshal(map[string]string{"text": text})
		_, terr := tools.DefaultOps()["input"].Run(ctx, &tools.Task{Driver: d, Args: args})
		if code := tools.ErrorCode(terr); code != broker.CodeUnsupported {
			t.Errorf("%q: the input tool answers %s, want %s (%v)", text, code, broker.CodeUnsupported, terr)
		}
		msg := err.Error()
		for _, want := range []string{char, "printable ASCII", "ADBKeyboard", "set_ime", "LatinIME"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%q: the refusal %q does not say %q", text, msg, want)
			}
		}
		if strings.Contains(msg, "not plain ASCII") {
			t.Errorf("%q: the refusal %q calls the text not plain ASCII", text, msg)
		}
	}
}
