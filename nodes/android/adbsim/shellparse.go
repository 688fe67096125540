package adbsim

import (
	"fmt"
	"strings"
)

// A command line is parsed, not run by a shell: words with POSIX quoting, simple redirections
// (<, >, >>, N>, N>&M), commands joined into pipelines by |, and pipelines into a list by ;, &,
// &&, || and newlines (& runs the pipeline before it in the background; `wait` waits for it).
// Expansions and subshells are refused with a syntax error rather than taken literally, so a
// driver that forgets to quote is caught, not obeyed.

// pipeline is one or more commands joined by |; after says when it runs.
type pipeline struct {
	after      string // "" (first), ";", "&", "&&" or "||": the operator before it
	background bool   // it ended with &: the next one does not wait for it
	cmds       []command
}

// command is one simple command: its words and redirections.
type command struct {
	args   []string
	redirs []redir
}

// redir is a redirection: fd (0 for <, 1 for > unless a number came first), op (<, >, >>, >&,
// <&) and its target word.
type redir struct {
	fd     int
	op     string
	target string
}

// syntaxError is a command line the interpreter cannot run.
type syntaxError struct{ msg string }

func (e *syntaxError) Error() string { return e.msg }

func syntaxErr(format string, a ...any) error {
	return &syntaxError{msg: fmt.Sprintf(format, a...)}
}

// unsupported are characters that mean something the interpreter does not do when unquoted.
const unsupported = "$`()"

// parser is the state of parseLine.
type parser struct {
	out     []pipeline
	cur     pipeline
	cmd     command
	word    strings.Builder
	inWord  bool   // a word has begun, even an empty one like ''
	quoted  bool   // part of the word was quoted or escaped
	pending *redir // a redirection waiting for its target word
}

func (p *parser) endWord() {
	if !p.inWord {
		return
	}
	if p.pending != nil {
		p.pending.target = p.word.String()
		p.cmd.redirs = append(p.cmd.redirs, *p.pending)
		p.pending = nil
	} else {
		p.cmd.args = append(p.cmd.args, p.word.String())
	}
	p.word.Reset()
	p.inWord, p.quoted = false, false
}

func (p *parser) endCmd(op string) error {
	p.endWord()
	switch {
	case p.pending != nil:
		return syntaxErr("syntax error: redirection %s has no target", p.pending.op)
	case len(p.cmd.args) == 0 && op == "":
		return syntaxErr("syntax error: unexpected end of file")
	case len(p.cmd.args) == 0:
		return syntaxErr("syntax error: unexpected '%s'", op)
	}
	p.cur.cmds = append(p.cur.cmds, p.cmd)
	p.cmd = command{}
	return nil
}

func (p *parser) endPipeline(op string) error {
	if err := p.endCmd(op); err != nil {
		return err
	}
	p.out = append(p.out, p.cur)
	p.cur = pipeline{after: op}
	return nil
}

// empty says whether nothing has been read since the last operator.
func (p *parser) empty() bool {
	return !p.inWord && p.pending == nil && len(p.cmd.args) == 0 && len(p.cmd.redirs) == 0 && len(p.cur.cmds) == 0
}

// redirect starts a redirection at line[i] ('<' or '>') and returns the index of its last
// character. Digits just before it, unquoted, name the file descriptor.
func (p *parser) redirect(line string, i int) int {
	r := redir{fd: 0, op: line[i : i+1]}
	if line[i] == '>' {
		r.fd = 1
	}
	if n := p.word.String(); p.inWord && !p.quoted && n != "" && allDigits(n) && len(n) < 3 {
		r.fd = int(n[0] - '0')
		if len(n) == 2 {
			r.fd = r.fd*10 + int(n[1]-'0')
		}
		p.word.Reset()
		p.inWord = false
	}
	p.endWord()
	if i+1 < len(line) && (line[i+1] == '&' || (line[i] == '>' && line[i+1] == '>')) {
		r.op += line[i+1 : i+2]
		i++
	}
	p.pending = &r
	return i
}

// parseLine splits a command line into pipelines.
func parseLine(line string) ([]pipeline, error) {
	p := &parser{}
	for i := 0; i < len(line); i++ {
		var err error
		switch c := line[i]; {
		case c == ' ' || c == '\t':
			p.endWord()
		case c == '\n' || c == ';':
			if c == '\n' && p.empty() {
				continue // a blank line
			}
			err = p.endPipeline(";")
		case c == '&' && i+1 < len(line) && line[i+1] == '&':
			i++
			err = p.endPipeline("&&")
		case c == '&':
			p.cur.background = true
			err = p.endPipeline("&")
		case c == '|' && i+1 < len(line) && line[i+1] == '|':
			i++
			err = p.endPipeline("||")
		case c == '|':
			err = p.endCmd("|")
		case c == '<' || c == '>':
			if p.pending != nil && !p.inWord {
				return nil, syntaxErr("syntax error: unexpected '%c'", c)
			}
			i = p.redirect(line, i)
		case c == '#' && !p.inWord:
			for i+1 < len(line) && line[i+1] != '\n' {
				i++
			}
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, syntaxErr("syntax error: unterminated quoted string")
			}
			p.word.WriteString(line[i+1 : i+1+end])
			p.inWord, p.quoted = true, true
			i += end + 1
		case c == '"':
			n, err := doubleQuoted(line[i+1:], &p.word)
			if err != nil {
				return nil, err
			}
			p.inWord, p.quoted = true, true
			i += n + 1
		case c == '\\':
			if i+1 < len(line) {
				i++
				if line[i] != '\n' { // backslash-newline joins lines
					p.word.WriteByte(line[i])
					p.inWord, p.quoted = true, true
				}
			}
		case strings.IndexByte(unsupported, c) >= 0:
			return nil, syntaxErr("syntax error: unsupported '%c': this device interprets only quoting, ;, &, &&, ||, | and redirections", c)
		default:
			p.word.WriteByte(c)
			p.inWord = true
		}
		if err != nil {
			return nil, err
		}
	}
	p.endWord()
	if p.empty() {
		if p.cur.after == "&&" || p.cur.after == "||" {
			return nil, syntaxErr("syntax error: unexpected end of file after '%s'", p.cur.after)
		}
		return p.out, nil // an empty line, or a trailing ;
	}
	if err := p.endPipeline(""); err != nil {
		return nil, err
	}
	return p.out, nil
}

// doubleQuoted reads the inside of "…" from s into w and returns the index of the closing quote.
// A backslash escapes only $ ` " \ and newline, as in sh.
func doubleQuoted(s string, w *strings.Builder) (int, error) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return i, nil
		case '\\':
			if i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
				i++
				if s[i] != '\n' {
					w.WriteByte(s[i])
				}
				continue
			}
			w.WriteByte(c)
		case '$', '`':
			return 0, syntaxErr("syntax error: unsupported '%c' inside double quotes: this device does not expand", c)
		default:
			w.WriteByte(c)
		}
	}
	return 0, syntaxErr("syntax error: unterminated quoted string")
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
