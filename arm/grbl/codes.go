package grbl

import "fmt"

// code is one row of GRBL 1.1's error or alarm table: the short name GRBL 1.0 printed, the
// description GRBL 1.1's documentation gives (doc/csv/*_codes_en_US.csv in gnea/grbl), and
// what to do about it.
type code struct {
	name, text, hint string
}

// Hints shared by many G-code errors.
const (
	hintGcode = "the line is not G-code GRBL accepts: check how the sender formats it"
	hintAlarm = "call Recover (Reset when GRBL waits for one, then $X) after checking the machine"
)

// errorCodes is GRBL 1.1's error table (error:N answers a line).
var errorCodes = map[int]code{
	1:  {"Expected command letter", "G-code words consist of a letter and a value. Letter was not found.", hintGcode},
	2:  {"Bad number format", "Missing the expected G-code word value or numeric value format is not valid.", hintGcode},
	3:  {"Invalid statement", "Grbl '$' system command was not recognized or supported.", "GRBL 1.1 knows $$ $# $G $I $N $X $H $J= $C $SLP $RST= and $n=value; a single setting is read from $$"},
	4:  {"Value < 0", "Negative value received for an expected positive value.", "send a positive value"},
	5:  {"Setting disabled", "Homing cycle failure. Homing is not enabled via settings.", "enable homing with $22=1 (the machine needs limit switches) or use $X to unlock"},
	6:  {"Value < 3 usec", "Minimum step pulse time must be greater than 3usec.", "set $0 to 3 or more"},
	7:  {"EEPROM read fail. Using defaults", "An EEPROM read failed. Auto-restoring affected EEPROM to default values.", "check every setting with $$ and write back the rig's values"},
	8:  {"Not idle", "Grbl '$' system command cannot be used unless Grbl is IDLE. Ensures smooth operation during a job.", "wait for Idle (WaitIdle) before '$' commands"},
	9:  {"G-code lock", "G-code commands are locked out during alarm or jog state.", "the controller is in alarm state: " + hintAlarm},
	10: {"Homing not enabled", "Soft limits cannot be enabled without homing also enabled.", "enable homing ($22=1) before soft limits ($20=1)"},
	11: {"Line overflow", "Max characters per line exceeded. Received command line was not executed.", "GRBL takes at most 79 characters a line, spaces and comments excluded"},
	12: {"Step rate > 30kHz", "Grbl '$' setting value cause the step rate to exceed the maximum supported.", "lower the max rate ($110-$112) or the steps per mm ($100-$102)"},
	13: {"Check Door", "Safety door detected as opened and door state initiated.", "close the safety door, then resume (~)"},
	14: {"Line length exceeded", "Build info or startup line exceeded EEPROM line length limit. Line not stored.", "shorten the startup or build-info line"},
	15: {"Travel exceeded", "Jog target exceeds machine travel. Jog command has been ignored.", "jog inside the travel box ($130-$132)"},
	16: {"Invalid jog command", "Jog command has no '=' or contains prohibited g-code.", "a jog is $J= followed by G-code words"},
	17: {"Setting disabled", "Laser mode requires PWM output.", "laser mode ($32=1) needs a PWM spindle build"},
	20: {"Unsupported command", "Unsupported or invalid g-code command found in block.", hintGcode},
	21: {"Modal group violation", "More than one g-code command from same modal group found in block.", hintGcode},
	22: {"Undefined feed rate", "Feed rate has not yet been set or is undefined.", "give a feed rate (F) with the first G1 (a reset forgets it)"},
	23: {"Invalid gcode ID:23", "G-code command in block requires an integer value.", hintGcode},
	24: {"Invalid gcode ID:24", "More than one g-code command that requires axis words found in block.", hintGcode},
	25: {"Invalid gcode ID:25", "Repeated g-code word found in block.", hintGcode},
	26: {"Invalid gcode ID:26", "No axis words found in block for g-code command or current modal state which requires them.", hintGcode},
	27: {"Invalid gcode ID:27", "Line number value is invalid.", hintGcode},
	28: {"Invalid gcode ID:28", "G-code command is missing a required value word.", hintGcode},
	29: {"Invalid gcode ID:29", "G59.x work coordinate systems are not supported.", hintGcode},
	30: {"Invalid gcode ID:30", "G53 only allowed with G0 and G1 motion modes.", hintGcode},
	31: {"Invalid gcode ID:31", "Axis words found in block when no command or current modal state uses them.", hintGcode},
	32: {"Invalid gcode ID:32", "G2 and G3 arcs require at least one in-plane axis word.", hintGcode},
	33: {"Invalid gcode ID:33", "Motion command target is invalid.", hintGcode},
	34: {"Invalid gcode ID:34", "Arc radius value is invalid.", hintGcode},
	35: {"Invalid gcode ID:35", "G2 and G3 arcs require at least one in-plane offset word.", hintGcode},
	36: {"Invalid gcode ID:36", "Unused value words found in block.", hintGcode},
	37: {"Invalid gcode ID:37", "G43.1 dynamic tool length offset is not assigned to configured tool length axis.", hintGcode},
	38: {"Invalid gcode ID:38", "Tool number greater than max supported value.", hintGcode},
}

// alarmCodes is GRBL 1.1's alarm table (ALARM:N, pushed without a request).
var alarmCodes = map[int]code{
	1:  {"Hard limit", "Hard limit has been triggered. Machine position is likely lost due to sudden halt. Re-homing is highly recommended.", "a limit switch tripped: clear the gantry, Reset, then $X; re-home or re-calibrate, the position is likely lost"},
	2:  {"Soft limit", "Soft limit alarm. G-code motion target exceeds machine travel. Machine position retained. Alarm may be safely unlocked.", "the target was outside the travel box ($130-$132): Reset, then $X, and send targets inside it"},
	3:  {"Abort during cycle", "Reset while in motion. Machine position is likely lost due to sudden halt. Re-homing is highly recommended.", "reset while moving: $X to unlock, then re-home or re-calibrate (a feed hold before the reset keeps the position)"},
	4:  {"Probe fail", "Probe fail. Probe is not in the expected initial state before starting probe cycle when G38.2 and G38.3 is not triggered and G38.4 and G38.5 is triggered.", "check the probe wiring, then $X"},
	5:  {"Probe fail", "Probe fail. Probe did not contact the workpiece within the programmed travel for G38.2 and G38.4.", "probe from closer, then $X"},
	6:  {"Homing fail", "Homing fail. The active homing cycle was reset.", "home again ($H)"},
	7:  {"Homing fail", "Homing fail. Safety door was opened during homing cycle.", "close the door and home again ($H)"},
	8:  {"Homing fail", "Homing fail. Pull off travel failed to clear limit switch. Try increasing pull-off setting or check wiring.", "raise the pull-off ($27) or check the limit switch wiring"},
	9:  {"Homing fail", "Homing fail. Could not find limit switch within search distances. Try increasing max travel, decreasing pull-off distance, or check wiring.", "check the limit switches and the max travel ($130-$132)"},
	10: {"Homing fail", "Homing fail. Second dual axis limit switch failed to trigger within configured search distance after first. Try increasing trigger fail distance or check wiring.", "check the second limit switch of the dual axis"},
}

// Error is GRBL's answer error:N to a line: the line was refused and did not run.
type Error struct {
	Code int
}

func (e *Error) Error() string {
	c, ok := errorCodes[e.Code]
	if !ok {
		return fmt.Sprintf("error:%d (not in GRBL 1.1's table)", e.Code)
	}
	return fmt.Sprintf("error:%d %s: %s", e.Code, c.name, c.text)
}

// Hint says what to do about the error.
func (e *Error) Hint() string {
	if c, ok := errorCodes[e.Code]; ok {
		return c.hint
	}
	return "see the controller's documentation (FluidNC adds codes above 38)"
}

// Alarm is GRBL's ALARM:N: the controller stopped and locks G-code out until it is unlocked
// ($X), after a reset for the critical ones (see Alarm.NeedsReset).
type Alarm struct {
	Code int
}

func (a *Alarm) Error() string {
	c, ok := alarmCodes[a.Code]
	if !ok {
		if a.Code == 0 {
			return "alarm state (GRBL came up locked)"
		}
		return fmt.Sprintf("ALARM:%d (not in GRBL 1.1's table)", a.Code)
	}
	return fmt.Sprintf("ALARM:%d %s: %s", a.Code, c.name, c.text)
}

// Hint says what to do about the alarm.
func (a *Alarm) Hint() string {
	if c, ok := alarmCodes[a.Code]; ok {
		return c.hint
	}
	return hintAlarm
}

// NeedsReset reports whether GRBL halts on this alarm until a soft reset (hard and soft
// limits): until then it answers neither lines nor status requests.
func (a *Alarm) NeedsReset() bool { return a.Code == 1 || a.Code == 2 }

// hinter is an error that says what to do about it.
type hinter interface{ Hint() string }
