package mcp

import (
	"bufio"
	"encoding/json"
	"errors"
)

// oversized is a line of stdin too long to relay: its size, and the id of the request it
// held, nil when none was found.
type oversized struct {
	size int64
	id   json.RawMessage
}

// readLine reads one line of r, its newline included. A line longer than limit is not kept:
// the rest of it is read through and scanned for its request's id, and over says so. err is
// r's (io.EOF after the last line).
func readLine(r *bufio.Reader, limit int) (line []byte, over *oversized, err error) {
	var ids *idScanner
	var size int64
	for {
		chunk, err := r.ReadSlice('\n')
		size += int64(len(chunk))
		if ids == nil && len(line)+len(chunk) > limit {
			ids = &idScanner{}
			ids.feed(line)
			line = nil
		}
		if ids != nil {
			ids.feed(chunk)
		} else {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if ids != nil {
			return nil, &oversized{size: size, id: ids.id()}, err
		}
		return line, nil, err
	}
}

// idScanner finds the "id" member of a top-level JSON object a byte at a time, keeping no more
// than the id: a message too large to keep can still be answered by its id, wherever it
// stands (the TypeScript SDK writes it last). It gives up on anything it cannot read.
type idScanner struct {
	started, done bool
	depth         int
	inString, esc bool
	str           []byte // the string at depth 1 being read, up to 3 bytes
	strLong       bool   // it had more
	strEnded      bool   // a depth-1 string ended just now: a ':' makes it a key
	value         []byte // the id's value being read; nil when not reading one
	reading       bool
	found         json.RawMessage
}

// maxID bounds the id kept: a request id is a short string or a number.
const maxID = 256

func (s *idScanner) feed(p []byte) {
	for _, c := range p {
		if s.done {
			return
		}
		s.step(c)
	}
}

// id is the id found, nil when none.
func (s *idScanner) id() json.RawMessage { return s.found }

func (s *idScanner) step(c byte) {
	if s.reading {
		s.readValue(c)
		return
	}
	if s.inString {
		switch {
		case s.esc:
			s.esc = false
		case c == '\\':
			s.esc = true
		case c == '"':
			s.inString = false
			s.strEnded = s.depth == 1
			return
		}
		if s.depth == 1 {
			if len(s.str) < 3 {
				s.str = append(s.str, c)
			} else {
				s.strLong = true
			}
		}
		return
	}
	switch c {
	case ' ', '\t', '\r', '\n':
		return
	}
	if !s.started {
		s.started, s.done = true, c != '{' // only an object has members
	}
	ended := s.strEnded
	s.strEnded = false
	switch c {
	case '"':
		s.inString, s.str, s.strLong = true, s.str[:0], false
	case ':':
		if ended && !s.strLong && string(s.str) == "id" {
			s.reading, s.value = true, nil
		}
	case '{', '[':
		s.depth++
	case '}', ']':
		s.depth--
	}
}

// readValue reads the id's value: a string, a number or null, which ends at its closing quote
// or at the first byte that is none of its.
func (s *idScanner) readValue(c byte) {
	if len(s.value) == 0 {
		switch c {
		case ' ', '\t', '\r', '\n':
			return
		case '{', '[':
			s.done = true // no id is an object or an array
			return
		}
		s.value = append(s.value, c)
		return
	}
	if s.value[0] == '"' {
		s.value = append(s.value, c)
		switch {
		case s.esc:
			s.esc = false
		case c == '\\':
			s.esc = true
		case c == '"':
			s.finish()
			return
		}
	} else {
		switch c {
		case ',', '}', ' ', '\t', '\r', '\n':
			s.finish()
			return
		}
		s.value = append(s.value, c)
	}
	if len(s.value) > maxID {
		s.done = true
	}
}

// finish keeps the value read if it is a valid id.
func (s *idScanner) finish() {
	s.done = true
	var id any
	if json.Unmarshal(s.value, &id) != nil {
		return
	}
	switch id.(type) {
	case string, float64, nil:
		s.found = json.RawMessage(s.value)
	}
}
