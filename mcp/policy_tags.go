package mcp

import "fmt"

// shownTagLen is how much of a refused tag its error quotes: enough to find it in the file.
const shownTagLen = 80

// checkPrincipalTag refuses a principal's tag no device could carry: empty, or longer than a
// node gives (--device-tags, the chart's node.deviceTags) and acquire_device accepts. Such a
// tag would silently match nothing, so the principal would see no device. The error names the
// tag; its principal is named by ParsePolicy.
func checkPrincipalTag(tag string) error {
	if tag == "" {
		return fmt.Errorf("tags: an empty tag; each tag must be 1 to %d bytes long", maxTagLen)
	}
	if len(tag) > maxTagLen {
		shown := cutString(tag, shownTagLen+len("…")) // on a character boundary: %q of half a character is \x escapes
		return fmt.Errorf("tags: tag %q is %d bytes long; each tag must be 1 to %d bytes long, as device tags are "+
			"(no device could carry it, so it would match none)", shown, len(tag), maxTagLen)
	}
	return nil
}
