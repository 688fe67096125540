package android

import (
	"encoding/base64"
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxTextChunk bounds the text one input command carries, so that the command fits in one
// adb packet even on devices that only take 4 KiB (every ' becomes 4 bytes when quoted).
const maxTextChunk = 1000

// shellQuote quotes s for a POSIX shell: everything between single quotes is literal, and a
// single quote inside closes the quotes, adds an escaped quote (\') and opens them again.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// typable says whether `input text` can type s: printable ASCII only. A literal "%s", which
// `input text` would turn into a space, is typed in two commands cut between '%' and 's'.
func typable(s string) bool {
	return untypable(s) < 0
}

// untypable is the index of the first byte of s that `input text` cannot type (anything but
// printable ASCII), or -1 if there is none.
func untypable(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return i
		}
	}
	return -1
}

// inputTextCommand is the contract's command for typing ASCII text: spaces become %s and the
// whole is single-quoted, so no byte of it reaches the shell unquoted. s must not contain "%s".
func inputTextCommand(s string) string {
	return "input text " + shellQuote(strings.ReplaceAll(s, " ", "%s"))
}

// broadcastTextCommand is the contract's command for typing any text through the ADBKeyboard
// IME: the UTF-8 bytes in standard base64, whose alphabet needs no quoting.
func broadcastTextCommand(s string) string {
	return "am broadcast -a ADB_INPUT_B64 --es msg " + base64.StdEncoding.EncodeToString([]byte(s))
}

// textCommands returns the commands that type text: `input text` for printable ASCII, the
// ADB_INPUT_B64 broadcast otherwise, in pieces of at most maxTextChunk bytes cut at rune
// boundaries. `input text` has no escape for a literal "%s" (it reads "%%s" as "% " too), so
// typable text is also cut between the '%' and the 's' of each "%s": no piece then holds one.
func textCommands(text string) (cmds []string, broadcast bool) {
	broadcast = !typable(text)
	if broadcast {
		for _, piece := range chunks(text, maxTextChunk) {
			cmds = append(cmds, broadcastTextCommand(piece))
		}
		return cmds, true
	}
	for _, part := range splitPercentS(text) {
		for _, piece := range chunks(part, maxTextChunk) {
			cmds = append(cmds, inputTextCommand(piece))
		}
	}
	return cmds, false
}

// splitPercentS cuts s between the '%' and the 's' of every "%s" in it: "50%sale" is "50%",
// "sale".
func splitPercentS(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "%s")
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
}

// chunks cuts s into pieces of at most n bytes without splitting a UTF-8 sequence.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		if cut == 0 { // no rune start in the window: invalid UTF-8; cut anywhere
			cut = n
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// clipboardCommand is the contract's command that puts text on the clipboard through the
// Clipper app. A NUL byte would cut the command short inside adbd, so it is refused.
func clipboardCommand(text string) (string, error) {
	if strings.IndexByte(text, 0) >= 0 {
		return "", fmt.Errorf("%w: the text contains a NUL byte, which no adb shell command can carry", ErrBadArgument)
	}
	return "am broadcast -a clipper.set -e text " + shellQuote(text), nil
}

// quoteOutput shows a device's answer in an error: quoted, trimmed, at most 200 bytes.
func quoteOutput(out string) string {
	out = strings.TrimSpace(out)
	if len(out) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		out = out[:cut] + "…"
	}
	return fmt.Sprintf("%q", out)
}

// containsAny says whether s contains any of subs.
func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
