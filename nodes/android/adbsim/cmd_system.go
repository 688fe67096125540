package adbsim

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// props answers getprop; ro.product.model and ro.serialno come from the device.
var props = map[string]string{
	"ro.product.brand":        "corral",
	"ro.product.manufacturer": "Corral",
	"ro.product.name":         productName,
	"ro.product.device":       productName,
	"ro.build.type":           "user",
	"sys.boot_completed":      "1",
}

func (d *Device) prop(name string) (string, bool) {
	switch name {
	case "ro.product.model":
		return d.model, true
	case "ro.build.version.release":
		return d.release, true
	case "ro.build.version.sdk":
		return strconv.Itoa(d.sdk), true
	case "ro.serialno":
		return d.addr, true
	case "ro.product.cpu.abi":
		return d.abi, true
	case "ro.sf.lcd_density":
		return strconv.Itoa(d.currentDisplay().density), true
	}
	v, ok := props[name]
	return v, ok
}

// cmdGetprop runs `getprop [NAME]`: the value (an empty line if unset), or every property.
func cmdGetprop(d *Device, c *call) int {
	if len(c.args) > 1 {
		v, _ := d.prop(c.args[1])
		c.printf("%s\n", v)
		return 0
	}
	names := []string{"ro.product.model", "ro.serialno", "ro.sf.lcd_density", "ro.build.version.release", "ro.build.version.sdk", "ro.product.cpu.abi"}
	for k := range props {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		v, _ := d.prop(k)
		c.printf("[%s]: [%s]\n", k, v)
	}
	return 0
}

// cmdIme runs `ime list [-s]`, `ime enable IME` and `ime set IME`.
func cmdIme(d *Device, c *call) int {
	if len(c.args) < 2 {
		c.errorf("ime <command>:\n  list [-a] [-s]\n  enable ID\n  set ID\n")
		return 1
	}
	id := ""
	if len(c.args) > 2 {
		id = c.args[len(c.args)-1]
	}
	switch c.args[1] {
	case "list":
		for _, m := range imes {
			c.printf("%s\n", m)
		}
		return 0
	case "enable":
		if !slices.Contains(imes, id) {
			c.printf("Unknown input method %s cannot be enabled for user #0\n", id)
			return 1
		}
		c.printf("Input method %s: already enabled for user #0\n", id)
		return 0
	case "set":
		if !slices.Contains(imes, id) {
			c.printf("Unknown input method %s cannot be selected for user #0\n", id)
			return 1
		}
		d.mu.Lock()
		d.ime = id
		d.mu.Unlock()
		c.printf("Input method %s selected for user #0\n", id)
		return 0
	}
	c.printf("Unknown command: %s\n", c.args[1])
	return 1
}

// cmdSettings runs `settings get NAMESPACE KEY`: the selected input method for secure
// default_input_method, "null" for anything else (as for an unset key on a phone).
func cmdSettings(d *Device, c *call) int {
	if len(c.args) != 4 || c.args[1] != "get" {
		c.errorf("usage:  settings [--user <USER_ID> | current] get namespace key\n")
		return 1
	}
	if c.args[2] == "secure" && c.args[3] == "default_input_method" {
		c.printf("%s\n", d.IME())
		return 0
	}
	c.printf("null\n")
	return 0
}

// IME is the input method selected (by `ime set`); the Gboard-like LatinIME at first.
func (d *Device) IME() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ime
}

// cmdRm runs `rm [-f] [-r] PATH...` on the pushed files.
func cmdRm(d *Device, c *call) int {
	force, status := false, 0
	for _, a := range c.args[1:] {
		if strings.HasPrefix(a, "-") {
			force = force || strings.Contains(a, "f")
			continue
		}
		if !d.files.remove(a) && !force {
			c.errorf("rm: %s: No such file or directory\n", a)
			status = 1
		}
	}
	return status
}

// cmdCat runs `cat PATH...` on the pushed files, or copies its input.
func cmdCat(d *Device, c *call) int {
	if len(c.args) == 1 {
		c.out.Write(c.stdin)
		return 0
	}
	status := 0
	for _, p := range c.args[1:] {
		f, ok := d.files.get(p)
		if !ok {
			c.errorf("cat: %s: No such file or directory\n", p)
			status = 1
			continue
		}
		c.out.Write(f.Data)
	}
	return status
}

func cmdEcho(_ *Device, c *call) int {
	c.printf("%s\n", strings.Join(c.args[1:], " "))
	return 0
}

// cmdGrep runs `grep [-i] [-v] [-F] PATTERN` on its input; status 1 when no line matches.
func cmdGrep(_ *Device, c *call) int {
	var ignoreCase, invert, fixed bool
	pattern, have := "", false
	for _, a := range c.args[1:] {
		if !have && len(a) > 1 && strings.HasPrefix(a, "-") {
			ignoreCase = ignoreCase || strings.Contains(a, "i")
			invert = invert || strings.Contains(a, "v")
			fixed = fixed || strings.Contains(a, "F")
			continue
		}
		if !have {
			pattern, have = a, true
		}
	}
	if !have {
		c.errorf("usage: grep [-ivF] PATTERN\n")
		return 2
	}
	match := func(line string) bool { return strings.Contains(line, pattern) }
	if ignoreCase {
		lower := strings.ToLower(pattern)
		match = func(line string) bool { return strings.Contains(strings.ToLower(line), lower) }
	}
	if !fixed {
		expr := pattern
		if ignoreCase {
			expr = "(?i)" + expr
		}
		if re, err := regexp.Compile(expr); err == nil { // grep's basic regexps, as far as Go's agree
			match = re.MatchString
		}
	}
	status := 1
	for line := range strings.Lines(string(c.stdin)) {
		if match(strings.TrimSuffix(line, "\n")) != invert {
			c.out.WriteString(line)
			status = 0
		}
	}
	return status
}

// cmdSleep runs `sleep SECONDS`; it ends early when the stream closes.
func cmdSleep(_ *Device, c *call) int {
	if len(c.args) != 2 {
		c.errorf("usage: sleep SECONDS\n")
		return 1
	}
	s, err := strconv.ParseFloat(c.args[1], 64)
	if err != nil || s < 0 || s > 3600 {
		c.errorf("sleep: invalid number '%s'\n", c.args[1])
		return 1
	}
	if sleep(c.ctx, time.Duration(s*float64(time.Second))) != nil {
		return 130
	}
	return 0
}
