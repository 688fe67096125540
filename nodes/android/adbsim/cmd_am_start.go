package adbsim

import "strings"

// amStart runs `am start [-W] [-S] -n PKG/ACTIVITY` (or -p PKG): the package comes to the front
// as its launcher activity would, whatever activity is named. A package that is not installed
// gets am's own error: "Activity class {…} does not exist".
func amStart(d *Device, c *call) int {
	cmp, pkg := "", ""
	for i := 2; i < len(c.args); i++ {
		switch c.args[i] {
		case "-n":
			if i+1 < len(c.args) {
				cmp = c.args[i+1]
				pkg, _, _ = strings.Cut(cmp, "/")
			}
			i++
		case "-p":
			if i+1 < len(c.args) {
				pkg = c.args[i+1]
			}
			i++
		case "-a", "-c", "-d", "-t", "-f", "--user":
			i++ // an option and its value
		case "-e", "--es", "--ei", "--ez", "--el", "--ef":
			i += 2 // an extra: its key and value
		}
	}
	if pkg == "" {
		c.errorf("Error: Activity not started, unable to resolve Intent\n")
		return 1
	}
	if cmp == "" {
		cmp = pkg + "/.MainActivity"
	}
	c.printf("Starting: Intent { cmp=%s }\n", cmp)
	st := launch(d, c, pkg)
	if st == noActivity {
		c.errorf("Error type 3\nError: Activity class {%s} does not exist.\n", cmp)
		return 1
	}
	return st
}
