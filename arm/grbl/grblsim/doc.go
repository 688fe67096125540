// Package grblsim simulates a GRBL 1.1h controller driving a gantry with a stylus finger,
// speaking the real protocol on TCP (Serve, ServeTCP: raw lines, as FluidNC's telnet port),
// a pseudo-terminal (ServePTY: a serial port for grbl.DialSerial) or any stream (Attach).
// One machine stands behind every connection; what it prints goes to all of them.
//
// What it does as GRBL 1.1h does:
//
//   - The welcome "Grbl 1.1h ['$' for help]" when a stream attaches and after every reset;
//     "[MSG:'$H'|'$X' to unlock]" when it is locked in alarm state.
//   - A 128-byte receive buffer (bytes past it are lost) and an 80-byte line buffer (a
//     longer line answers error:11); spaces, comments and control characters are dropped,
//     letters upper-cased; CR and LF each end a line (an empty line answers ok).
//   - Realtime bytes picked out as they arrive, ahead of the buffer: ? status report, !
//     feed hold, ~ resume, Ctrl-X soft reset (ALARM:3 when it catches the steppers running).
//   - G0 G1 G4 G17 G20 G21 G54 G90 G91 G94, M2 M3 M4 M5 M7 M8 M9 M30, F S P N T, with GRBL's
//     error codes; $$ $# $G $I $N $Nn= $X $H $n=v; soft limits ($20) raise ALARM:2 and
//     halt until a reset, answering nothing (not even ?).
//   - A 15-block planner; every move accelerates and decelerates at the axis settings
//     ($110-$112, $120-$122) from and to rest; M3/M5 and G4 wait for the moves before them.
//   - Status reports "<Idle|MPos:…|Bf:…|FS:…>" as $10 asks, with WCO and Ov now and then.
//
// Left out: arcs, probing, jogging ($J=), check mode ($C), sleep, offsets (G92, G10),
// overrides and the safety door. The planner stops between blocks (GRBL's joins them), so
// a path of many short segments runs slower than on the real machine.
//
// The finger is a solenoid on the spindle PWM (down while M3 runs at the strike PWM or more;
// in laser mode, $32=1, only during G1 moves) or a Z axis (WithZFinger). OnFinger reports it
// going down, moving (sampled at least every 1 mm and every 10 ms of machine time) and up,
// at machine positions. WithSpeed runs the machine faster than the clock; WithClock takes a
// clock of one's own.
//
// Faults, for tests: InjectAlarm, DropNextOK, SpontaneousReset, Stall and StallUntil,
// Disconnect.
package grblsim
