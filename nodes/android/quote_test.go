package android

import (
	"encoding/base64"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostile are texts that must reach the device as text, never as shell syntax.
var hostile = []string{
	"hello world",
	"'; rm -rf / #",
	"$(reboot)",
	"`reboot`",
	`it's "quoted" \ back\slash`,
	"tab\there",
	"new\nline",
	"emoji 😀 ok",
	"中文输入",
	"50% off",
	"100%s sure",
	"%%s",
	"a'b''c'''",
	"; && || | > < & * ? [ ] { } ~ ! #",
	"$HOME ${PATH} $((1+1))",
	"-n",
	" leading and trailing ",
	"\x7f del",
	"é",
}

// shellWords runs the POSIX shell on `printf %s ARG` to see what one argument becomes.
func shellWords(t *testing.T, arg string) string {
	t.Helper()
	out, err := exec.Command("/bin/sh", "-c", "printf %s "+arg).Output()
	if err != nil {
		t.Fatalf("sh -c printf %%s %s: %v", arg, err)
	}
	return string(out)
}

// androidInputText is what Android's `input text` types for its argument: %s becomes a space.
func androidInputText(arg string) string {
	b := []rune(arg)
	var out []rune
	for i := 0; i < len(b); i++ {
		if b[i] == '%' && i+1 < len(b) && b[i+1] == 's' {
			out = append(out, ' ')
			i++
			continue
		}
		out = append(out, b[i])
	}
	return string(out)
}

func TestShellQuoteIsLiteral(t *testing.T) {
	if _, err := exec.LookPath("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	for _, s := range hostile {
		if got := shellWords(t, shellQuote(s)); got != s {
			t.Errorf("shellQuote(%q) reads back as %q", s, got)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"":      "''",
		"abc":   "'abc'",
		"it's":  `'it'\''s'`,
		"'":     `''\'''`,
		"$(x)":  "'$(x)'",
		"a\nb":  "'a\nb'",
		"`x` y": "'`x` y'",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestTextCommandsRouteAndRoundTrip(t *testing.T) {
	for _, text := range hostile {
		cmds, broadcast := textCommands(text)
		if len(cmds) == 0 {
			t.Fatalf("%q: no commands", text)
		}
		wantBroadcast := !typable(text)
		if broadcast != wantBroadcast {
			t.Errorf("%q: broadcast = %v, want %v", text, broadcast, wantBroadcast)
		}
		if broadcast {
			if len(cmds) != 1 {
				t.Fatalf("%q: %d broadcasts, want 1", text, len(cmds))
			}
			b64, ok := strings.CutPrefix(cmds[0], "am broadcast -a ADB_INPUT_B64 --es msg ")
			if !ok {
				t.Fatalf("%q: command %q", text, cmds[0])
			}
			if strings.Trim(b64, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") != "" {
				t.Errorf("%q: base64 %q has characters a shell would read", text, b64)
			}
			raw, err := base64.StdEncoding.DecodeString(b64)
			if err != nil || string(raw) != text {
				t.Errorf("%q: base64 decodes to %q, %v", text, raw, err)
			}
			continue
		}
		var typed strings.Builder
		for _, cmd := range cmds {
			arg, ok := strings.CutPrefix(cmd, "input text ")
			if !ok {
				t.Fatalf("%q: command %q", text, cmd)
			}
			if strings.Contains(arg, " ") && !strings.HasPrefix(arg, "'") {
				t.Errorf("%q: unquoted space in %q", text, arg)
			}
			typed.WriteString(androidInputText(shellWords(t, arg)))
		}
		if typed.String() != text {
			t.Errorf("%q: %q types %q", text, cmds, typed.String())
		}
	}
}

func TestTextCommandsExact(t *testing.T) {
	for text, want := range map[string][]string{
		"hello world":   {`input text 'hello%sworld'`},
		"it's":          {`input text 'it'\''s'`},
		"'; rm -rf / #": {`input text ''\'';%srm%s-rf%s/%s#'`},
		"$(reboot)":     {`input text '$(reboot)'`},
		"50% off":       {`input text '50%%soff'`},
		"héllo":         {"am broadcast -a ADB_INPUT_B64 --es msg " + base64.StdEncoding.EncodeToString([]byte("héllo"))},
		"tab\tx":        {"am broadcast -a ADB_INPUT_B64 --es msg dGFiCXg="},
		// `input text` has no escape for a literal "%s": it is cut between '%' and 's'.
		"a%sb":        {`input text 'a%'`, `input text 'sb'`},
		"50%sale":     {`input text '50%'`, `input text 'sale'`},
		"%s%s":        {`input text '%'`, `input text 's%'`, `input text 's'`},
		"%%s x":       {`input text '%%'`, `input text 's%sx'`},
		"100%s sure%": {`input text '100%'`, `input text 's%ssure%'`},
	} {
		cmds, _ := textCommands(text)
		if !slices.Equal(cmds, want) {
			t.Errorf("textCommands(%q) = %q, want %q", text, cmds, want)
		}
	}
}

func TestTextCommandsChunkLongText(t *testing.T) {
	long := strings.Repeat("ab'cd ", 500) // 3000 bytes, quotes expand
	cmds, broadcast := textCommands(long)
	if broadcast || len(cmds) != 3 {
		t.Fatalf("got %d commands (broadcast %v), want 3 input text commands", len(cmds), broadcast)
	}
	var typed strings.Builder
	for _, c := range cmds {
		if len(c) > 4000 {
			t.Errorf("command of %d bytes does not fit a 4 KiB adb packet", len(c))
		}
		typed.WriteString(androidInputText(shellWords(t, strings.TrimPrefix(c, "input text "))))
	}
	if typed.String() != long {
		t.Error("the pieces do not type the text")
	}
	cjk := strings.Repeat("中", 1000) // 3000 bytes; pieces must not split a rune
	cmds, _ = textCommands(cjk)
	var all []byte
	for _, c := range cmds {
		raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(c, "am broadcast -a ADB_INPUT_B64 --es msg "))
		if err != nil || !utf8.Valid(raw) {
			t.Fatalf("piece %q: %v, valid UTF-8 %v", c, err, utf8.Valid(raw))
		}
		all = append(all, raw...)
	}
	if string(all) != cjk {
		t.Error("the pieces do not add up to the text")
	}
}

func TestClipboardCommand(t *testing.T) {
	for _, s := range hostile {
		cmd, err := clipboardCommand(s)
		if err != nil {
			t.Fatal(err)
		}
		arg, ok := strings.CutPrefix(cmd, "am broadcast -a clipper.set -e text ")
		if !ok {
			t.Fatalf("command %q", cmd)
		}
		if got := shellWords(t, arg); got != s {
			t.Errorf("clipboard %q reads back as %q", s, got)
		}
	}
	if _, err := clipboardCommand("a\x00b"); err == nil {
		t.Error("a NUL byte was accepted")
	}
}

func TestValidPackageAndIME(t *testing.T) {
	for _, p := range []string{"com.android.settings", "a", "com.example_1.App", "_x.y"} {
		if !validPackage(p) {
			t.Errorf("validPackage(%q) = false", p)
		}
	}
	for _, p := range []string{"", "com..x", ".com", "com.", "1com", "com.1x", "com.x;reboot", "com.x y",
		"$(reboot)", "com/x", "com.x\n", "-p"} {
		if validPackage(p) {
			t.Errorf("validPackage(%q) = true", p)
		}
	}
	for _, ime := range []string{"com.android.adbkeyboard/.AdbIME", "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME"} {
		if !validIME(ime) {
			t.Errorf("validIME(%q) = false", ime)
		}
	}
	for _, ime := range []string{"", "com.x", "com.x/", "com.x/.A;reboot", "/.A", "com.x/.A$B", "com.x/.A B"} {
		if validIME(ime) {
			t.Errorf("validIME(%q) = true", ime)
		}
	}
}
