package adbsim

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
)

// features the device advertises: shell_v2 (the shell,v2: service with exit statuses), but no
// stat_v2, sendrecv_v2 or delayed_ack: the host then uses sync v1 and one-packet-at-a-time
// flow control. No cmd either, so `adb install` pushes the file and runs pm install.
const (
	features   = "shell_v2," + featuresV1
	featuresV1 = "fixed_push_mkdir"
)

// conn is one TCP connection from an adb server: the handshake and the streams multiplexed on
// it. Only run's goroutine reads; writes from any goroutine are serialised by wmu.
type conn struct {
	d      *Device
	nc     net.Conn
	ctx    context.Context // ends with the connection
	cancel context.CancelFunc

	wmu sync.Mutex

	mu      sync.Mutex // guards below
	online  bool
	version uint32
	maxData uint32
	streams map[uint32]*stream
	nextID  uint32
}

func newConn(d *Device, nc net.Conn) *conn {
	ctx, cancel := context.WithCancel(context.Background())
	return &conn{d: d, nc: nc, ctx: ctx, cancel: cancel, streams: map[uint32]*stream{},
		version: versionMin, maxData: deviceMaxData}
}

func (c *conn) close() {
	c.cancel()
	_ = c.nc.Close()
}

// run reads and dispatches packets until the connection ends or breaks the protocol.
func (c *conn) run() {
	defer c.close()
	log := c.d.log.With("device", c.d.addr, "remote", c.nc.RemoteAddr().String())
	log.Debug("adb connection")
	r := bufio.NewReaderSize(c.nc, 64<<10)
	for {
		p, err := decodePacket(r, maxPacketData)
		if err == nil {
			err = c.checkData(p)
		}
		if err == nil {
			err = c.handle(p)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				log.Warn("adb connection dropped", "err", err)
			}
			return
		}
	}
}

// checkData verifies the payload checksum when the negotiated version still has them.
func (c *conn) checkData(p packet) error {
	c.mu.Lock()
	v, online := c.version, c.online
	c.mu.Unlock()
	if online && v < versionSkipChecksum && p.check != checksum(p.data) {
		return fmt.Errorf("adb packet: %s checksum 0x%08x, payload sums to 0x%08x",
			cmdName(p.cmd), p.check, checksum(p.data))
	}
	return nil
}

func (c *conn) handle(p packet) error {
	switch p.cmd {
	case cmdCNXN:
		return c.connect(p)
	case cmdAUTH, cmdSTLS, cmdSYNC:
		return nil // never asked for (AUTH, STLS) or obsolete (SYNC): ignored as adbd does
	case cmdOPEN, cmdOKAY, cmdWRTE, cmdCLSE:
	default:
		return fmt.Errorf("adb packet: unknown command %s", cmdName(p.cmd))
	}
	c.mu.Lock()
	online := c.online
	s := c.streams[p.arg1]
	c.mu.Unlock()
	if !online {
		return nil // before CNXN nothing but CNXN counts
	}
	switch p.cmd {
	case cmdOPEN:
		return c.open(p.arg0, p.data)
	case cmdOKAY:
		if s != nil && s.remote == p.arg0 {
			s.acked()
		}
	case cmdWRTE:
		if s == nil || s.remote != p.arg0 {
			return c.send(packet{cmd: cmdCLSE, arg1: p.arg0}) // a stream we do not have
		}
		return s.received(p.data)
	case cmdCLSE:
		if s != nil && s.remote == p.arg0 {
			c.forget(s)
		}
	}
	return nil
}

// connect answers the host's CNXN with ours, taking the lower version and payload size. A
// second CNXN restarts the session: every stream is dropped.
func (c *conn) connect(p packet) error {
	c.mu.Lock()
	old := c.streams
	c.streams = map[uint32]*stream{}
	c.online = true
	c.version = min(p.arg0, versionSkipChecksum)
	c.maxData = min(max(p.arg1, 4096), deviceMaxData)
	version, maxData := c.version, c.maxData
	c.mu.Unlock()
	for _, s := range old {
		s.cancel()
	}
	c.d.log.Debug("adb handshake", "device", c.d.addr, "host", strings.TrimRight(string(p.data), "\x00"),
		"host_version", fmt.Sprintf("0x%08x", p.arg0), "host_maxdata", p.arg1, "checksum", p.check)
	banner := fmt.Sprintf("device::ro.product.name=%s;ro.product.model=%s;ro.product.device=%s;features=%s",
		productName, c.d.model, productName, c.d.features)
	return c.send(packet{cmd: cmdCNXN, arg0: version, arg1: maxData, data: []byte(banner)})
}

// open starts the service the host names, or refuses it with CLSE(0, remote).
func (c *conn) open(remote uint32, data []byte) error {
	name := strings.TrimRight(string(data), "\x00")
	svc := c.d.service(name)
	if svc.run == nil {
		c.d.log.Debug("adb service refused", "device", c.d.addr, "service", name)
		return c.send(packet{cmd: cmdCLSE, arg1: remote})
	}
	c.mu.Lock()
	c.nextID++
	if c.nextID == 0 {
		c.nextID = 1
	}
	s := newStream(c, c.nextID, remote, svc.reads)
	c.streams[s.local] = s
	c.mu.Unlock()
	if err := c.send(packet{cmd: cmdOKAY, arg0: s.local, arg1: remote}); err != nil {
		return err
	}
	go svc.run(s)
	return nil
}

// forget drops a stream the host closed.
func (c *conn) forget(s *stream) {
	c.mu.Lock()
	if c.streams[s.local] == s {
		delete(c.streams, s.local)
	}
	c.mu.Unlock()
	s.cancel()
}

func (c *conn) payloadMax() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return int(c.maxData)
}

// send writes one packet; header and payload go out in one write.
func (c *conn) send(p packet) error {
	c.mu.Lock()
	v := c.version
	c.mu.Unlock()
	bufs := net.Buffers{p.header(v < versionSkipChecksum)}
	if len(p.data) > 0 {
		bufs = append(bufs, p.data)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := bufs.WriteTo(c.nc)
	return err
}
