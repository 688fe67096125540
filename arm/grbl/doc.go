// Package grbl drives a GRBL 1.1 or FluidNC motion controller: the gantry of a robotic-arm
// rig, X/Y in millimetres over a phone, with a stylus finger that is either a solenoid on the
// spindle PWM (M3 S<pwm> strikes, M5 releases) or a Z axis.
//
// A Client talks over any byte stream: DialSerial (a USB board), DialTCP (FluidNC's telnet
// port), or Open on a stream of one's own (the simulator in grblsim serves TCP and a pty).
// What it does with it:
//
//   - Start-up: it waits for the welcome ("Grbl 1.1h ['$' for help]") the controller prints
//     at power-up and after every reset, and resets a controller that does not greet, or
//     that greets but answers no status request (GRBL halted on a limit waits for a reset).
//   - Lines: one in flight until its ok or error:N (send-response; answers are matched to
//     lines in order, so character counting can come later). error:N is an *Error and
//     ALARM:N an *Alarm, with GRBL 1.1's texts and a hint; both sit inside an *OpError
//     naming the port and the line.
//   - Realtime commands bypass the line queue: ? status, ! feed hold (Hold), ~ resume
//     (Resume), Ctrl-X soft reset (Reset).
//   - Status: a goroutine asks ? at 5-10 Hz (8 by default) and keeps the latest report
//     (Status); WaitFor and WaitIdle wait for a condition on fresh reports; Subscribe
//     streams state changes, alarms, [MSG:…] and resets.
//   - The link: EOF, a read or write error, or status requests left unanswered for the link
//     timeout make the client dead with ErrLinkLost; every later call fails at once with it.
//     Before that, Answering, Silent and Ignoring tell a controller that stopped answering
//     (frozen, a hung board: ErrSilent) from a slow one, for a caller that cannot wait that
//     long; Ignoring counts the requests left unanswered, so a late host is not misread.
//   - Program sends a few lines at once (they fit GRBL's receive buffer), so that the
//     controller times them back to back: a double tap, not the host's round trips.
//   - Barrier (G4 P0.01) returns once everything sent before it has run: the end of a
//     gesture. Stop brings the machine to rest with the finger up, whatever happened; calls
//     that overlap it (a gesture in another goroutine) send nothing and fail with ErrStopped.
//
// A tap at (x, y) on a solenoid rig:
//
//	if err := c.Rapid(ctx, x, y); err != nil { … }        // travel over the target
//	if err := c.SpindleOn(ctx, 1000); err != nil { … }    // strike (after the move ends)
//	if err := c.Dwell(ctx, 80*time.Millisecond); err != nil { … } // hold the touch
//	if err := c.SpindleOff(ctx); err != nil { … }         // release
//	if err := c.Barrier(ctx); err != nil { … }            // the finger is up now
//
// and whenever a gesture fails or its ctx ends, c.Stop(context.Background()) (with a
// timeout of its own) leaves the finger up.
package grbl
