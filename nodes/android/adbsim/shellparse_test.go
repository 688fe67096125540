package adbsim

import (
	"reflect"
	"strings"
	"testing"
)

// render prints parsed pipelines compactly: words in [], | between commands, redirections as
// fd op target, operators between pipelines.
func render(list []pipeline) string {
	var sb strings.Builder
	for _, p := range list {
		switch p.after {
		case "":
		case "&": // written after the background pipeline
			sb.WriteString(" ")
		default:
			sb.WriteString(" " + p.after + " ")
		}
		for i, c := range p.cmds {
			if i > 0 {
				sb.WriteString(" | ")
			}
			for j, a := range c.args {
				if j > 0 {
					sb.WriteByte(' ')
				}
				sb.WriteString("[" + a + "]")
			}
			for _, r := range c.redirs {
				sb.WriteString(" " + string(rune('0'+r.fd)) + r.op + r.target)
			}
		}
		if p.background {
			sb.WriteString(" &")
		}
	}
	return sb.String()
}

func TestParseLine(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"wm size", "[wm] [size]"},
		{"  input   tap\t540 1200 ", "[input] [tap] [540] [1200]"},
		{`input text 'it'\''s%sok'`, `[input] [text] [it's%sok]`},
		{`input text 'a;b&&c|d $HOME "q"'`, `[input] [text] [a;b&&c|d $HOME "q"]`},
		{`echo "a \"b\" \$c \x" ''`, `[echo] [a "b" $c \x] []`},
		{`echo a\ b\;c`, `[echo] [a b;c]`},
		{"dumpsys input | grep Orientation", "[dumpsys] [input] | [grep] [Orientation]"},
		{"a && b; c || d", "[a] && [b] ; [c] || [d]"},
		{"input tap 1 2 & sleep 0.15; input tap 1 2; wait", "[input] [tap] [1] [2] & [sleep] [0.15] ; [input] [tap] [1] [2] ; [wait]"},
		{"sleep 1 &", "[sleep] [1] &"},
		{"a|b&c", "[a] | [b] & [c]"},
		{"cmd >out 2>&1 &", "[cmd] 1>out 2>&1 &"},
		{"a;", "[a]"},
		{"a\n\nb", "[a] ; [b]"},
		{"echo hi # a comment", "[echo] [hi]"},
		{"echo a#b", "[echo] [a#b]"},
		{"rm -f '/data/local/tmp/x.apk' </dev/null", "[rm] [-f] [/data/local/tmp/x.apk] 0</dev/null"},
		{"cmd 2>/dev/null >out 2>&1 >>log", "[cmd] 2>/dev/null 1>out 2>&1 1>>log"},
		{"echo '2'>x", "[echo] [2] 1>x"},
		{"", ""},
	} {
		got, err := parseLine(tc.line)
		if err != nil {
			t.Errorf("parseLine(%q): %v", tc.line, err)
			continue
		}
		if r := render(got); r != tc.want {
			t.Errorf("parseLine(%q) = %s, want %s", tc.line, r, tc.want)
		}
	}
}

func TestParseLineErrors(t *testing.T) {
	for _, line := range []string{
		"echo $(reboot)", "echo `id`", "echo $HOME", `echo "$HOME"`, "(a)", "& a", "a & & b", "a & && b",
		"echo 'open", `echo "open`, "; a", "a && && b", "a &&", "a |", "| a", "echo >", "echo > > x",
	} {
		got, err := parseLine(line)
		if err == nil {
			t.Errorf("parseLine(%q) = %s, want a syntax error", line, render(got))
			continue
		}
		if _, ok := err.(*syntaxError); !ok || !strings.HasPrefix(err.Error(), "syntax error") {
			t.Errorf("parseLine(%q): %T %v", line, err, err)
		}
	}
}

func TestInputText(t *testing.T) {
	for in, want := range map[string]string{
		"hello":            "hello",
		"hello%sworld":     "hello world",
		"%s%s":             "  ",
		"100%":             "100%",
		"%%s":              "% ",
		"a%b":              "a%b",
		"it's%s\"quoted\"": "it's \"quoted\"",
	} {
		if got := inputText(in); got != want {
			t.Errorf("inputText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseIntent(t *testing.T) {
	in, ok := parseIntent([]string{"-a", "clipper.set", "-n", "x/.Y", "-e", "text", "hi there", "--ei", "n", "3"})
	want := intent{action: "clipper.set", extras: map[string]string{"text": "hi there", "n": "3"}}
	if !ok || !reflect.DeepEqual(in, want) {
		t.Errorf("parseIntent = %+v %v, want %+v", in, ok, want)
	}
	if _, ok := parseIntent([]string{"-a"}); ok {
		t.Error("parseIntent accepted -a without an action")
	}
}
