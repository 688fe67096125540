package adbsim

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestPacketRoundTrip(t *testing.T) {
	for _, p := range []packet{
		{cmd: cmdCNXN, arg0: versionSkipChecksum, arg1: 1 << 20, data: []byte("host::features=shell_v2\x00")},
		{cmd: cmdOKAY, arg0: 7, arg1: 9},
		{cmd: cmdWRTE, arg0: 1, arg1: 2, data: bytes.Repeat([]byte{0xff}, 4096)},
	} {
		var b bytes.Buffer
		b.Write(p.header(true))
		b.Write(p.data)
		got, err := decodePacket(&b, maxPacketData)
		if err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		if got.cmd != p.cmd || got.arg0 != p.arg0 || got.arg1 != p.arg1 || !bytes.Equal(got.data, p.data) {
			t.Errorf("decoded %v, want %v", got, p)
		}
		if got.check != checksum(p.data) {
			t.Errorf("%v: checksum %d, want %d", p, got.check, checksum(p.data))
		}
	}
	if got := checksum([]byte{1, 2, 0xff}); got != 258 {
		t.Errorf("checksum = %d, want the byte sum 258", got)
	}
	if cmdName(cmdCLSE) != "CLSE" || cmdName(0) != "0x00000000" {
		t.Errorf("cmdName: %q %q", cmdName(cmdCLSE), cmdName(0))
	}
}

func TestDecodePacketErrors(t *testing.T) {
	good := packet{cmd: cmdWRTE, arg0: 1, arg1: 2, data: []byte("hello")}
	frame := append(good.header(true), good.data...)

	badMagic := bytes.Clone(frame)
	badMagic[20] ^= 1
	if _, err := decodePacket(bytes.NewReader(badMagic), maxPacketData); !errors.Is(err, errBadMagic) {
		t.Errorf("bad magic: %v", err)
	}
	if _, err := decodePacket(bytes.NewReader(frame), 4); !errors.Is(err, errTooLarge) || !strings.Contains(err.Error(), "5 bytes") {
		t.Errorf("oversized: %v", err)
	}
	if _, err := decodePacket(bytes.NewReader(frame[:len(frame)-1]), maxPacketData); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("short payload: %v", err)
	}
	if _, err := decodePacket(bytes.NewReader(frame[:10]), maxPacketData); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("short header: %v", err)
	}
	if _, err := decodePacket(bytes.NewReader(nil), maxPacketData); err != io.EOF {
		t.Errorf("clean end: %v, want io.EOF", err)
	}
}
