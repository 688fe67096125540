package grbl

import (
	"context"
	"fmt"
	"net"

	"go.bug.st/serial"
)

// DialSerial opens a serial port (a USB GRBL board: /dev/ttyUSB0, /dev/ttyACM0; GRBL talks
// at 115200 baud, 8N1) and starts a client on it (see Open). Opening the port resets an
// Arduino, which then greets after its boot loader.
func DialSerial(ctx context.Context, path string, baud int, opts ...Option) (*Client, error) {
	if baud <= 0 {
		return nil, &OpError{Port: path, Op: "open", Err: fmt.Errorf("%w: baud rate %d", ErrBadArgument, baud)}
	}
	p, err := serial.Open(path, &serial.Mode{BaudRate: baud, DataBits: 8, Parity: serial.NoParity, StopBits: serial.OneStopBit})
	if err != nil {
		return nil, &OpError{Port: path, Op: "open", Err: err,
			Hint: "check the path, that no other program holds the port, and the permissions (the dialout group)"}
	}
	return Open(ctx, p, append([]Option{WithName(path)}, opts...)...)
}

// DialTCP connects to a controller's raw TCP port (FluidNC's telnet port, 23 by default:
// plain lines, no telnet negotiation) and starts a client on it (see Open).
func DialTCP(ctx context.Context, addr string, opts ...Option) (*Client, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, &OpError{Port: addr, Op: "open", Err: err,
			Hint: "check the address and that the controller is on the network"}
	}
	return Open(ctx, conn, append([]Option{WithName(addr)}, opts...)...)
}
