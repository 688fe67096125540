package adbsim

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Sync v1 request and reply ids.
const (
	syncSTAT = "STAT"
	syncLIST = "LIST"
	syncSEND = "SEND"
	syncRECV = "RECV"
	syncQUIT = "QUIT"
	syncDATA = "DATA"
	syncDONE = "DONE"
	syncOKAY = "OKAY"
	syncFAIL = "FAIL"
	syncDENT = "DENT"

	syncPathMax = 1024
	syncDataMax = 64 << 10
)

// serveSync runs the sync: service: requests of an id and a length, until QUIT or an error.
func (d *Device) serveSync(s *stream) {
	defer s.close()
	var hdr [8]byte
	for {
		if _, err := io.ReadFull(s, hdr[:]); err != nil {
			return
		}
		id, n := string(hdr[:4]), binary.LittleEndian.Uint32(hdr[4:])
		if id == syncQUIT {
			return
		}
		if n > syncPathMax {
			syncFail(s, fmt.Sprintf("path too long: %d bytes", n))
			return
		}
		arg := make([]byte, n)
		if _, err := io.ReadFull(s, arg); err != nil {
			return
		}
		var ok bool
		switch id {
		case syncSTAT:
			ok = d.syncStat(s, string(arg))
		case syncLIST:
			ok = d.syncList(s, string(arg))
		case syncSEND:
			ok = d.syncSend(s, string(arg))
		case syncRECV:
			ok = d.syncRecv(s, string(arg))
		default:
			syncFail(s, fmt.Sprintf("unknown sync request %q (this device speaks sync v1: STAT LIST SEND RECV QUIT)", id))
		}
		if !ok {
			return
		}
	}
}

func syncHeader(id string, fields ...uint32) []byte {
	b := make([]byte, 0, 4+4*len(fields))
	b = append(b, id...)
	for _, f := range fields {
		b = binary.LittleEndian.AppendUint32(b, f)
	}
	return b
}

func syncFail(s *stream, msg string) {
	_, _ = s.Write(append(syncHeader(syncFAIL, uint32(len(msg))), msg...))
}

func unixTime(t time.Time) uint32 {
	if t.IsZero() {
		return 0
	}
	return uint32(t.Unix())
}

// syncStat answers STAT (which sync v1 also uses for lstat): mode, size, mtime; zeros when
// nothing is there.
func (d *Device) syncStat(s *stream, p string) bool {
	var mode, size, mtime uint32
	p = cleanPath(p)
	if f, ok := d.files.get(p); ok {
		mode, size, mtime = f.Mode, uint32(len(f.Data)), unixTime(f.MTime)
	} else if p != "" && d.files.isDir(p) {
		mode, size = modeDir|0o771, 4096
	}
	_, err := s.Write(syncHeader(syncSTAT, mode, size, mtime))
	return err == nil
}

// syncList answers LIST with a DENT per entry and a DONE.
func (d *Device) syncList(s *stream, p string) bool {
	var b bytes.Buffer
	if p = cleanPath(p); p != "" && d.files.isDir(p) {
		for _, e := range d.files.list(p) {
			b.Write(syncHeader(syncDENT, e.mode, uint32(e.size), unixTime(e.mtime), uint32(len(e.name))))
			b.WriteString(e.name)
		}
	}
	b.Write(syncHeader(syncDONE, 0, 0, 0, 0))
	_, err := s.Write(b.Bytes())
	return err == nil
}

// syncSend receives a file: "PATH,MODE", then DATA chunks, then DONE with the mtime. A
// failure is reported after DONE, so a host still writing is not cut off mid-file.
func (d *Device) syncSend(s *stream, arg string) bool {
	p, mode := arg, uint64(0o644)
	if i := strings.LastIndexByte(arg, ','); i >= 0 {
		p = arg[:i]
		m, err := strconv.ParseUint(arg[i+1:], 0, 32) // "33188" or "0644", as strtoul(…, 0) reads them
		if err != nil {
			syncFail(s, fmt.Sprintf("bad file mode %q in SEND", arg[i+1:]))
			return false
		}
		mode = m
	}
	p = cleanPath(p)
	failure := d.files.writable(p)
	var data bytes.Buffer
	var hdr [8]byte
	for {
		if _, err := io.ReadFull(s, hdr[:]); err != nil {
			return false
		}
		id, n := string(hdr[:4]), binary.LittleEndian.Uint32(hdr[4:])
		switch id {
		case syncDATA:
		case syncDONE:
			if failure == nil {
				failure = d.files.put(p, File{Data: data.Bytes(), Mode: uint32(mode), MTime: time.Unix(int64(n), 0)})
			}
			if failure != nil {
				syncFail(s, "couldn't create file: "+failure.Error())
				return true
			}
			_, err := s.Write(syncHeader(syncOKAY, 0))
			return err == nil
		default:
			syncFail(s, fmt.Sprintf("invalid data message %q during SEND", id))
			return false
		}
		if n > syncDataMax {
			syncFail(s, fmt.Sprintf("DATA chunk of %d bytes; the limit is %d", n, syncDataMax))
			return false
		}
		if failure == nil && !d.files.room(p, data.Len()+int(n)) {
			failure, data = errNoSpace, bytes.Buffer{}
		}
		w := io.Discard
		if failure == nil {
			w = &data
		}
		if _, err := io.CopyN(w, s, int64(n)); err != nil {
			return false
		}
	}
}

// syncRecv sends a file as DATA chunks and a DONE.
func (d *Device) syncRecv(s *stream, p string) bool {
	f, ok := d.files.get(p)
	if !ok {
		err := errNotFound
		if d.files.isDir(cleanPath(p)) {
			err = errIsDir
		}
		syncFail(s, "open failed: "+err.Error())
		return true
	}
	var b bytes.Buffer
	for rest := f.Data; len(rest) > 0; {
		n := min(len(rest), syncDataMax)
		b.Write(syncHeader(syncDATA, uint32(n)))
		b.Write(rest[:n])
		rest = rest[n:]
	}
	b.Write(syncHeader(syncDONE, 0))
	_, err := s.Write(b.Bytes())
	return err == nil
}
