package steps

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"

	"gopkg.in/yaml.v3"
)

// yamlWhere is the "yaml: line N: " (or bare "yaml: ") yaml.v3 puts before a syntax error.
var yamlWhere = regexp.MustCompile(`^yaml: (line \d+: )?`)

// maxLineSearch bounds the lines syntaxLine reads again one prefix at a time (each a parse).
const maxLineSearch = 2000

// syntaxLine puts the line of a YAML syntax error in err. yaml.v3 names the line of the
// construct it was in (its context mark, counted from 0 for a parser's error: a bad indent on
// line 4 is "line 2") and keeps the problem's own mark to itself. The problem's line is the
// first line from which no prefix of the file reads as YAML: the line after the longest prefix
// that does. A file too long to read again that often keeps yaml.v3's line, as "near" one.
func syntaxLine(data []byte, err error) error {
	msg := err.Error()
	where := yamlWhere.FindString(msg)
	if where == "" {
		return err
	}
	what := msg[len(where):]
	lines := bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(lines) > maxLineSearch {
		if where == "yaml: " {
			return errors.New(what)
		}
		return fmt.Errorf("near %s%s", where[len("yaml: "):], what)
	}
	for p := len(lines) - 1; p > 0; p-- {
		var n yaml.Node
		if yaml.Unmarshal(bytes.Join(lines[:p], nil), &n) == nil {
			return fmt.Errorf("line %d: %s", p+1, what)
		}
	}
	return fmt.Errorf("line 1: %s", what)
}
