package adbsim

import (
	"encoding/base64"
	"errors"
	"strings"

	"github.com/corral-farm/corral/nodes/sim"
)

// Broadcast actions the preinstalled helper apps answer.
const (
	actionInputB64  = "ADB_INPUT_B64"  // ADBKeyboard: type base64-encoded UTF-8, --es msg
	actionInputText = "ADB_INPUT_TEXT" // ADBKeyboard: type --es msg as is
	actionClipSet   = "clipper.set"    // Clipper: set the clipboard to -e text
)

// intent is what `am broadcast` parsed from its arguments.
type intent struct {
	action string
	extras map[string]string
}

// parseIntent reads -a ACTION and string extras (-e/--es KEY VALUE); other options are skipped
// with their value.
func parseIntent(args []string) (intent, bool) {
	in := intent{extras: map[string]string{}}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "-a":
			if i+1 >= len(args) {
				return in, false
			}
			in.action = args[i+1]
			i++
		case "-e", "--es", "--ei", "--ez", "--el", "--ef":
			if i+2 >= len(args) {
				return in, false
			}
			in.extras[args[i+1]] = args[i+2]
			i += 2
		case "-n", "-p", "-f", "--user", "-d", "-t", "-c":
			i++
		}
	}
	return in, true
}

// cmdAm runs `am broadcast …`, `am start -n PKG/ACTIVITY` and `am force-stop PKG`.
func cmdAm(d *Device, c *call) int {
	if len(c.args) < 2 {
		c.errorf("usage: am [subcommand] [options]\n")
		return 1
	}
	switch c.args[1] {
	case "force-stop":
		if len(c.args) < 3 {
			c.errorf("Error: no package specified\n")
			return 1
		}
		pkg := c.args[len(c.args)-1]
		stop := d.phone.TerminateApp
		if d.isInstalled(pkg) {
			stop = d.phone.StopApp
		}
		err := stop(c.ctx, pkg)
		if errors.Is(err, sim.ErrUnknownPackage) {
			return 0 // stopping what is not there is quietly nothing
		}
		return phoneErr(c, err)
	case "start", "start-activity":
		return amStart(d, c)
	case "broadcast":
		in, ok := parseIntent(c.args[2:])
		if !ok {
			c.errorf("Error: missing argument\n")
			return 1
		}
		return broadcast(d, c, in)
	}
	c.errorf("Error: unknown command '%s'\n", c.args[1])
	return 1
}

// broadcast delivers an intent to the helper apps: ADBKeyboard (when it is the input method)
// and Clipper.
func broadcast(d *Device, c *call, in intent) int {
	extras := ""
	if len(in.extras) > 0 {
		extras = " (has extras)"
	}
	c.printf("Broadcasting: Intent { act=%s flg=0x400000%s }\n", in.action, extras)
	switch in.action {
	case actionInputB64, actionInputText:
		text, ok := in.extras["msg"]
		if ok && in.action == actionInputB64 {
			text, ok = decodeBase64(text)
		}
		if ok && d.IME() == imeADB {
			if st := phoneErr(c, d.phone.InputText(c.ctx, text)); st != 0 {
				return st
			}
		}
		c.printf("Broadcast completed: result=0\n")
	case actionClipSet:
		d.mu.Lock()
		d.clip = in.extras["text"]
		d.mu.Unlock()
		c.printf("Broadcast completed: result=-1, data=\"Text is copied into clipboard.\"\n")
	default:
		c.printf("Broadcast completed: result=0\n")
	}
	return 0
}

// decodeBase64 decodes as Android's Base64.DEFAULT does: padding optional, line breaks ignored.
func decodeBase64(s string) (string, bool) {
	s = strings.TrimRight(strings.NewReplacer("\n", "", "\r", "").Replace(s), "=")
	b, err := base64.RawStdEncoding.DecodeString(s)
	return string(b), err == nil
}

// Clipboard is the text the last clipper.set broadcast put on the clipboard.
func (d *Device) Clipboard() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.clip
}
