package rig

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// checkGRBL refuses a controller a rig cannot open: a rigs file's grbl is tcp://host:port
// (FluidNC's raw port) or a serial device's absolute path; anything else was opened as a
// serial path ("ftp://x", "ttyUSB0") and failed at every retry.
func checkGRBL(grbl string) error {
	const want = "tcp://host:port (FluidNC's raw port) or a serial device's path such as /dev/ttyUSB0"
	if scheme, rest, ok := strings.Cut(grbl, "://"); ok {
		if scheme != "tcp" {
			return fmt.Errorf("grbl %q: %s:// is no way to a controller; give %s", grbl, scheme, want)
		}
		host, port, err := net.SplitHostPort(rest)
		if n, perr := strconv.Atoi(port); err != nil || host == "" || perr != nil || n < 1 || n > 65535 {
			return fmt.Errorf("grbl %q: give the controller's host and port, e.g. tcp://fluidnc.local:23", grbl)
		}
		return nil
	}
	if !strings.HasPrefix(grbl, "/") {
		return fmt.Errorf("grbl %q: give %s", grbl, want)
	}
	return nil
}

// keyLines are the lines of each rig's keys in a rigs file, for its messages ("" is the rig's
// own line); nil when the file is no YAML, which Decode says.
func keyLines(data []byte) []map[string]int {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	doc := root.Content[0].Content
	for i := 0; i+1 < len(doc); i += 2 {
		if doc[i].Value != "rigs" || doc[i+1].Kind != yaml.SequenceNode {
			continue
		}
		var out []map[string]int
		for _, rig := range doc[i+1].Content {
			lines := map[string]int{"": rig.Line}
			if rig.Kind == yaml.MappingNode {
				for j := 0; j+1 < len(rig.Content); j += 2 {
					lines[rig.Content[j].Value] = rig.Content[j].Line
				}
			}
			out = append(out, lines)
		}
		return out
	}
	return nil
}

// onLine prefixes err with the line of key in lines, when it is known.
func onLine(lines map[string]int, key string, err error) error {
	if n := lines[key]; n > 0 {
		return fmt.Errorf("line %d: %w", n, err)
	}
	return err
}
