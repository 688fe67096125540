package main

import (
	"fmt"

	"github.com/corral-farm/corral/broker"
)

// newerTasksNote is what corral tasks says on stderr of the records it left out for their
// newer wire version ("" when none): written by nodes upgraded ahead of this CLI.
func newerTasksNote(h broker.History) string {
	n, v := h.NewerSkipped()
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("(%d task records of wire version %d, newer than this corral's %d, were skipped: "+
		"upgrade the gateway (and corral CLI) to the nodes' version)", n, v, broker.WireVersion)
}
