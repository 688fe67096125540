package redact

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// mark stands for a secret in these tests: corral run's mark, with characters of its own.
const mark = "…(redacted)"

// hide is text with secrets taken out, names kept.
func hide(text string, secrets, names []string) string {
	return NewSecrets(mark, secrets, names...).Hide(text)
}

// A secret is taken out where it stands whole (secrets.go), not out of every word, key,
// serial or task id that holds it (QA: a typed "e" made "w…(redacted)b-02 r…(redacted)fus…",
// and "p[redacted][redacted]k to ch[redacted]ck" in a task's record).
func TestRedactSecretsWhereTheyStandWhole(t *testing.T) {
	const m = mark
	for _, c := range []struct {
		name, in string
		secrets  []string
		keep     []string
		want     string
	}{
		{name: "a letter in prose", in: "input on web-02 refused (bad_input): no field has focus", secrets: []string{"e"},
			want: "input on web-02 refused (bad_input): no field has focus"},
		{name: "a letter as a JSON value", in: `{"serial":"web-02","text":"e"}`, secrets: []string{"e"},
			want: `{"serial":"web-02","text":"` + m + `"}`},
		{name: "a letter in quoted JSON", in: `bad arguments "{\"text\":\"e\", \"e\": 1}"`, secrets: []string{"e"},
			want: `bad arguments "{\"text\":\"` + m + `\", \"e\": 1}"`},
		{name: "a letter quoted in prose", in: `typed 'x' into t_x7xx2xxxxxxxxxxx`, secrets: []string{"x"},
			want: `typed '` + m + `' into t_x7xx2xxxxxxxxxxx`},
		{name: "a letter, whole", in: "e", secrets: []string{"e"}, want: m},
		{name: "a key is kept", in: `{"text": "text", "password":"password"}`, secrets: []string{"text", "password"},
			want: `{"text": "` + m + `", "password":"` + m + `"}`},
		{name: "a word in prose", in: "password hunter2 refused; hunter2x is another; hunter2.", secrets: []string{"hunter2"},
			want: "password " + m + " refused; hunter2x is another; " + m + "."},
		{name: "a short secret inside a word", in: `{"text":"latest"}`, secrets: []string{"test"},
			want: `{"text":"latest"}`},
		{name: "a long secret inside a value", in: `{"text":"abchunter22"} and abchunter22`, secrets: []string{"hunter22"},
			want: `{"text":"abc` + m + `"} and abc` + m},
		{name: "a serial is kept", in: `{"serial":"emulator-5554"} on emulator-5554`, secrets: []string{"emulator"}, keep: []string{"emulator-5554"},
			want: `{"serial":"emulator-5554"} on emulator-5554`},
		{name: "a serial not named", in: `{"serial":"emulator-5554"}`, secrets: []string{"emulator"},
			want: `{"serial":"` + m + `-5554"}`},
		{name: "a task id is kept", in: "task t_hunter22aaaaaaaa ended", secrets: []string{"hunter22"},
			want: "task t_hunter22aaaaaaaa ended"},
		{name: "escaped in JSON", in: `{"password":"pa\"ss\u003cw\u003eord"}`, secrets: []string{`pa"ss<w>ord`},
			want: `{"password":"` + m + `"}`},
		{name: "the mark is kept", in: "hunter22 was redacted", secrets: []string{"hunter22", "redacted"},
			want: m + " was " + m},
		{name: "the longest first", in: "hunter22-and-more, then hunter22", secrets: []string{"hunter22", "hunter22-and-more"},
			want: m + ", then " + m},
		{name: "a letter in a word of other letters", in: "café ist fertig", secrets: []string{"é"}, want: "café ist fertig"},
		{name: "a word of other letters", in: "pässwörd: pässwörd", secrets: []string{"pässwörd"}, want: m + ": " + m},
		// QA: get_source's XML held the typed password escaped, and corral run's reports showed it.
		{name: "escaped in XML", in: `<node text="Tr0ub&amp;dor3" class="android.widget.EditText" />`, secrets: []string{"Tr0ub&dor3"},
			want: `<node text="` + m + `" class="android.widget.EditText" />`},
		{name: "escaped in XML, in JSON", in: `{"source":"<node text=\"Tr0ub\u0026amp;dor3\" />"}`, secrets: []string{"Tr0ub&dor3"},
			want: `{"source":"<node text=\"` + m + `\" />"}`},
		{name: "as each escaper spells it", secrets: []string{`p<ss&w0rd"x'`},
			in: `go="p&lt;ss&amp;w0rd&#34;x&#39;" android="p&lt;ss&amp;w0rd&quot;x'" named="p&lt;ss&amp;w0rd&quot;x&apos;" ` +
				`json="p\u0026lt;ss\u0026amp;w0rd\u0026#34;x\u0026#39;" text=<p>p&lt;ss&amp;w0rd"x'</p>`,
			want: `go="` + m + `" android="` + m + `" named="` + m + `" json="` + m + `" text=<p>` + m + `</p>`},
		{name: "escaped lines", in: `<node text="line one&#xA;line two" /><node text="line one&#10;line two" />`, secrets: []string{"line one\nline two"},
			want: `<node text="` + m + `" /><node text="` + m + `" />`},
		{name: "an escaped letter in prose", in: `<node text="Tom &amp; Jerry" /><node text="&amp;" />`, secrets: []string{"&"},
			want: `<node text="Tom &amp; Jerry" /><node text="` + m + `" />`},
		{name: "an escaped word in a word", in: `typed a&amp;b1, not xa&amp;b1`, secrets: []string{"a&b1"},
			want: `typed ` + m + `, not xa&amp;b1`},
		// QA: input {"text":"e"} and {"text":"1"} garbled their records, and the marks told the letter.
		{name: "a letter in a record", secrets: []string{"e"},
			in:   `{"hint":"peek to check the text","message":"typed 1 characters","text":"e"}`,
			want: `{"hint":"peek to check the text","message":"typed 1 characters","text":"` + m + `"}`},
		{name: "a digit counted", in: "typed 1 characters", secrets: []string{"1"}, want: "typed 1 characters"},
		{name: "a short word in prose", in: "device web-01: no web page open on web-01", secrets: []string{"web"}, keep: []string{"web-01"},
			want: "device web-01: no web page open on web-01"},
		{name: "a short secret, quoted", in: `typing "web" failed`, secrets: []string{"web"}, want: `typing "` + m + `" failed`},
		{name: "a four-letter word", in: "typed test into the tests field", secrets: []string{"test"}, want: "typed " + m + " into the tests field"},
		{name: "a whole value that is a name", in: "web-01", secrets: []string{"web-01"}, keep: []string{"web-01"}, want: m},
		{name: "a secret that runs into a name", in: `typed "web-01 x" into web-01`, secrets: []string{"web-01 x"}, keep: []string{"web-01"},
			want: `typed "` + m + `" into web-01`},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, hide(c.in, c.secrets, c.keep))
		})
	}
}
