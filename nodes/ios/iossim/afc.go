package iossim

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"strconv"
)

const afcServiceName = "com.apple.afc"

// maxOpenFiles bounds the handles one AFC connection may hold.
const maxOpenFiles = 256

// afcConn is one AFC connection: the device's files and this connection's open handles.
type afcConn struct {
	fs     *memFS
	model  string
	files  map[uint64]*afcFile
	nextFD uint64
}

type afcFile struct {
	node                  *fsNode
	pos                   int64
	read, write, appendTo bool
}

// serveAFC answers AFC packets until the host leaves or breaks the framing.
func (d *Device) serveAFC(_ context.Context, c net.Conn, log *slog.Logger) {
	a := &afcConn{fs: d.fs, model: d.ident.productType, files: map[uint64]*afcFile{}, nextFD: 1}
	for {
		p, err := readAFCPacket(c)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				log.Debug("AFC connection ends", "udid", d.udid, "err", err)
			}
			return
		}
		ans := a.handle(p)
		ans.Num = p.Num
		if err := writeAFCPacket(c, ans); err != nil {
			return
		}
	}
}

// afcStatus is a status answer: 0 for success, else an AFC error code.
func afcStatus(code int) afcPacket {
	return afcPacket{Op: afcOpStatus, HeaderPayload: le64(uint64(code))}
}

func afcData(b []byte) afcPacket {
	return afcPacket{Op: afcOpData, Payload: b}
}

// handle answers one packet.
func (a *afcConn) handle(p afcPacket) afcPacket {
	hp := p.HeaderPayload
	switch p.Op {
	case afcOpReadDir:
		return a.pathOp(hp, func(path string) afcPacket {
			names, code := a.fs.list(path)
			if code != afcOK {
				return afcStatus(code)
			}
			var b bytes.Buffer
			for _, n := range names {
				b.WriteString(n)
				b.WriteByte(0)
			}
			return afcData(b.Bytes())
		})
	case afcOpGetFileInfo:
		return a.pathOp(hp, a.fileInfo)
	case afcOpGetDevInfo:
		return afcData(nulPairs(
			"Model", a.model,
			"FSTotalBytes", strconv.FormatInt(afcTotalBytesReported, 10),
			"FSFreeBytes", strconv.FormatInt(a.fs.free(), 10),
			"FSBlockSize", strconv.Itoa(afcDefaultBlockSize),
		))
	case afcOpMakeDir:
		return a.pathOp(hp, func(path string) afcPacket { return afcStatus(a.fs.mkdirAll(path)) })
	case afcOpRemovePath:
		return a.pathOp(hp, func(path string) afcPacket { return afcStatus(a.fs.remove(path, false)) })
	case afcOpRemovePathAndContents:
		return a.pathOp(hp, func(path string) afcPacket { return afcStatus(a.fs.remove(path, true)) })
	case afcOpRenamePath:
		from, to, ok := bytes.Cut(hp, []byte{0})
		if !ok {
			return afcStatus(afcInvalidArgument)
		}
		f, code1 := cleanPath(string(from))
		t, code2 := cleanPath(string(to))
		if code1 != afcOK || code2 != afcOK {
			return afcStatus(afcInvalidArgument)
		}
		return afcStatus(a.fs.rename(f, t))
	case afcOpTruncate:
		if len(hp) < 8 {
			return afcStatus(afcOpHeaderInvalid)
		}
		size := int64(binary.LittleEndian.Uint64(hp))
		return a.pathOp(hp[8:], func(path string) afcPacket {
			n, code := a.fs.open(path, false, false)
			if code != afcOK {
				return afcStatus(code)
			}
			return afcStatus(a.fs.truncate(n, size))
		})
	case afcOpSetFileTime:
		if len(hp) < 8 {
			return afcStatus(afcOpHeaderInvalid)
		}
		return a.pathOp(hp[8:], func(path string) afcPacket {
			_, _, _, _, _, code := a.fs.stat(path)
			return afcStatus(code)
		})
	case afcOpFileOpen:
		return a.openFile(hp)
	case afcOpFileRead, afcOpFileWrite, afcOpFileSeek, afcOpFileTell, afcOpFileClose, afcOpFileSetSize, afcOpFileLock:
		return a.fileOp(p)
	case afcOpMakeLink:
		return afcStatus(afcOpNotSupported)
	}
	return afcStatus(afcUnknownPacketType)
}

// pathOp runs op on the path in a header payload.
func (a *afcConn) pathOp(hp []byte, op func(string) afcPacket) afcPacket {
	path, code := cleanPath(string(hp))
	if code != afcOK {
		return afcStatus(code)
	}
	return op(path)
}

// fileInfo is GetFileInfo's answer, with the keys and order afcd uses.
func (a *afcConn) fileInfo(path string) afcPacket {
	size, dir, entries, mtime, born, code := a.fs.stat(path)
	if code != afcOK {
		return afcStatus(code)
	}
	kind, nlink := "S_IFREG", 1
	if dir {
		kind, nlink, size = "S_IFDIR", entries+2, int64(entries+2)*32
	}
	return afcData(nulPairs(
		"st_size", strconv.FormatInt(size, 10),
		"st_blocks", strconv.FormatInt((size+511)/512, 10),
		"st_nlink", strconv.Itoa(nlink),
		"st_ifmt", kind,
		"st_mtime", strconv.FormatInt(mtime.UnixNano(), 10),
		"st_birthtime", strconv.FormatInt(born.UnixNano(), 10),
	))
}

// openFile is FileOpen: a mode (8 bytes), then the path.
func (a *afcConn) openFile(hp []byte) afcPacket {
	if len(hp) < 8 {
		return afcStatus(afcOpHeaderInvalid)
	}
	mode := binary.LittleEndian.Uint64(hp)
	f := &afcFile{}
	var create, trunc bool
	switch mode {
	case 1: // r
		f.read = true
	case 2: // r+, created if missing
		f.read, f.write, create = true, true, true
	case 3: // w
		f.write, create, trunc = true, true, true
	case 4: // w+
		f.read, f.write, create, trunc = true, true, true, true
	case 5: // a
		f.write, f.appendTo, create = true, true, true
	case 6: // a+
		f.read, f.write, f.appendTo, create = true, true, true, true
	default:
		return afcStatus(afcInvalidArgument)
	}
	if len(a.files) >= maxOpenFiles {
		return afcStatus(afcNoResources)
	}
	path, code := cleanPath(string(hp[8:]))
	if code != afcOK {
		return afcStatus(code)
	}
	if f.node, code = a.fs.open(path, create, trunc); code != afcOK {
		return afcStatus(code)
	}
	fd := a.nextFD
	a.nextFD++
	a.files[fd] = f
	return afcPacket{Op: afcOpFileOpenResult, HeaderPayload: le64(fd)}
}

// fileOp runs an operation on an open handle, the first 8 bytes of the header payload.
func (a *afcConn) fileOp(p afcPacket) afcPacket {
	hp := p.HeaderPayload
	if len(hp) < 8 {
		return afcStatus(afcOpHeaderInvalid)
	}
	fd := binary.LittleEndian.Uint64(hp)
	f := a.files[fd]
	if f == nil {
		return afcStatus(afcInvalidArgument)
	}
	arg := func(i int) (uint64, bool) { // the i-th integer after the handle
		if len(hp) < 8*(i+2) {
			return 0, false
		}
		return binary.LittleEndian.Uint64(hp[8*(i+1):]), true
	}
	switch p.Op {
	case afcOpFileRead:
		n, ok := arg(0)
		if !ok {
			return afcStatus(afcOpHeaderInvalid)
		}
		if !f.read {
			return afcStatus(afcPermDenied)
		}
		b := a.fs.readAt(f.node, f.pos, int(min(n, maxAFCRead)))
		f.pos += int64(len(b))
		return afcData(b)
	case afcOpFileWrite:
		if !f.write {
			return afcStatus(afcPermDenied)
		}
		if f.appendTo {
			f.pos = a.fs.size(f.node)
		}
		if code := a.fs.writeAt(f.node, f.pos, p.Payload); code != afcOK {
			return afcStatus(code)
		}
		f.pos += int64(len(p.Payload))
		return afcStatus(afcOK)
	case afcOpFileSeek:
		whence, ok1 := arg(0)
		off, ok2 := arg(1)
		if !ok1 || !ok2 {
			return afcStatus(afcOpHeaderInvalid)
		}
		var base int64
		switch whence {
		case 0:
		case 1:
			base = f.pos
		case 2:
			base = a.fs.size(f.node)
		default:
			return afcStatus(afcInvalidArgument)
		}
		pos := base + int64(off)
		if pos < 0 || pos > a.fs.limit {
			return afcStatus(afcInvalidArgument)
		}
		f.pos = pos
		return afcStatus(afcOK)
	case afcOpFileTell:
		return afcPacket{Op: afcOpFileTellResult, HeaderPayload: le64(uint64(f.pos))}
	case afcOpFileSetSize:
		size, ok := arg(0)
		if !ok {
			return afcStatus(afcOpHeaderInvalid)
		}
		if !f.write {
			return afcStatus(afcPermDenied)
		}
		return afcStatus(a.fs.truncate(f.node, int64(size)))
	case afcOpFileClose:
		delete(a.files, fd)
	}
	return afcStatus(afcOK) // FileClose, FileLock
}

// nulPairs joins keys and values as NUL-terminated strings, AFC's dictionary format.
func nulPairs(kv ...string) []byte {
	var b bytes.Buffer
	for _, s := range kv {
		b.WriteString(s)
		b.WriteByte(0)
	}
	return b.Bytes()
}
