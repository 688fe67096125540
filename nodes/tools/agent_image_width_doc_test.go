package tools

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// docs/agent.md says how wide the screenshots the model sees are: agentImageWidth, the one
// source of that number.
func TestAgentDocSaysTheImageWidth(t *testing.T) {
	doc, err := os.ReadFile("../../docs/agent.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(doc)), " ")
	if want := fmt.Sprintf("a screenshot scaled to at most %d pixels wide", agentImageWidth); !strings.Contains(text, want) {
		t.Errorf("docs/agent.md does not say %q (nodes/tools/agent_device.go's agentImageWidth)", want)
	}
}
