package iossim

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// errBplist is what checkBplist reports; the plist library would find most of these too, but
// only after allocating for them.
var errBplist = errors.New("malformed binary plist")

// checkBplist walks a binary plist's object graph before it is decoded: the decoder expands
// shared objects into copies, so a few hundred bytes could otherwise describe 2^64 values. It
// checks the trailer and every container's references, and counts the objects the decoded value
// would have. Anything that is not a binary plist passes (XML has no shared objects).
func checkBplist(b []byte) error {
	if !bytes.HasPrefix(b, []byte("bplist")) {
		return nil
	}
	const trailerLen = 32
	if len(b) < 8+trailerLen {
		return fmt.Errorf("%w: %d bytes is too short", errBplist, len(b))
	}
	t := b[len(b)-trailerLen:]
	g := bplistGraph{
		b:       b,
		offSize: uint64(t[6]),
		refSize: uint64(t[7]),
		n:       binary.BigEndian.Uint64(t[8:]),
	}
	top := binary.BigEndian.Uint64(t[16:])
	g.table = binary.BigEndian.Uint64(t[24:])
	end := uint64(len(b) - trailerLen)
	switch {
	case g.offSize < 1 || g.offSize > 8 || g.refSize < 1 || g.refSize > 8:
		return fmt.Errorf("%w: integer sizes %d and %d", errBplist, g.offSize, g.refSize)
	case g.n == 0 || g.n > end || top >= g.n:
		return fmt.Errorf("%w: %d objects, top %d", errBplist, g.n, top)
	case g.table < 8 || g.table > end || (end-g.table)/g.offSize < g.n:
		return fmt.Errorf("%w: offset table at %d", errBplist, g.table)
	}
	g.memo = make([]int, g.n)
	_, err := g.size(top, 0)
	return err
}

// bplistGraph is a binary plist seen as a graph of objects.
type bplistGraph struct {
	b                []byte
	offSize, refSize uint64
	n, table         uint64
	memo             []int // expanded size per object; 0 unknown, -1 being counted
}

// size is how many values object i expands to when decoded.
func (g *bplistGraph) size(i uint64, depth int) (int, error) {
	switch m := g.memo[i]; {
	case m > 0:
		return m, nil
	case m < 0:
		return 0, fmt.Errorf("%w: object %d contains itself", errBplist, i)
	case depth > maxPlistDepth:
		return 0, fmt.Errorf("%w: nested deeper than %d", errBplist, maxPlistDepth)
	}
	off := uintBE(g.b[g.table+i*g.offSize:], g.offSize)
	if off >= g.table {
		return 0, fmt.Errorf("%w: object %d at %d", errBplist, i, off)
	}
	refs, at, err := g.refs(off)
	if err != nil {
		return 0, err
	}
	g.memo[i] = -1
	total := 1
	for k := range refs {
		child := uintBE(g.b[at+k*g.refSize:], g.refSize)
		if child >= g.n {
			return 0, fmt.Errorf("%w: reference to object %d of %d", errBplist, child, g.n)
		}
		s, err := g.size(child, depth+1)
		if err != nil {
			return 0, err
		}
		total += s
		if total > maxPlistNodes {
			return 0, fmt.Errorf("%w: more than %d values", errBplist, maxPlistNodes)
		}
	}
	g.memo[i] = total
	return total, nil
}

// refs returns how many object references the object at off holds and where they start; zero
// for anything that is not a container.
func (g *bplistGraph) refs(off uint64) (count, at uint64, err error) {
	marker := g.b[off]
	kind := marker >> 4
	if kind != 0xA && kind != 0xB && kind != 0xC && kind != 0xD {
		return 0, 0, nil
	}
	count, at = uint64(marker&0x0F), off+1
	if count == 0x0F { // the count is an integer object that follows
		if at >= g.table || g.b[at]>>4 != 0x1 {
			return 0, 0, fmt.Errorf("%w: container at %d has no count", errBplist, off)
		}
		width := uint64(1) << (g.b[at] & 0x0F)
		if width > 8 || at+1+width > g.table {
			return 0, 0, fmt.Errorf("%w: container at %d has a bad count", errBplist, off)
		}
		count = uintBE(g.b[at+1:], width)
		at += 1 + width
	}
	if count > g.table {
		return 0, 0, fmt.Errorf("%w: container at %d claims %d entries", errBplist, off, count)
	}
	if kind == 0xD {
		count *= 2 // keys, then values
	}
	if count*g.refSize > g.table-at {
		return 0, 0, fmt.Errorf("%w: container at %d runs past its data", errBplist, off)
	}
	return count, at, nil
}

// uintBE reads a big-endian unsigned integer of width bytes (1 to 8).
func uintBE(b []byte, width uint64) uint64 {
	var v uint64
	for _, c := range b[:width] {
		v = v<<8 | uint64(c)
	}
	return v
}
