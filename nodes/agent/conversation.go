package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/corral-farm/corral/nodes/agent/model"
)

const (
	// maxListingRunes bounds an element listing in the conversation: enough for a few hundred
	// elements, not a runaway dump.
	maxListingRunes = 20000
	// imageNote replaces a screenshot that is no longer among the latest kept.
	imageNote = "[older screenshot left out: only the latest are kept]"
	// maxReplayRunes and maxReplayBytes bound the model's own text and a call's arguments when
	// its answer goes back to it: a normal turn is far below, a runaway one is not resent whole.
	maxReplayRunes = 4000
	maxReplayBytes = 8000
)

// conversation is the messages of one model exchange (the plan, a step, the conclusion).
// Only the latest keep screenshots stay in it, so a long step does not outgrow the context.
type conversation struct {
	msgs []model.Message
	keep int
}

func newConversation(system string, keep int) *conversation {
	return &conversation{msgs: []model.Message{{Role: model.RoleSystem, Text: system}}, keep: keep}
}

func (c *conversation) add(m ...model.Message) { c.msgs = append(c.msgs, m...) }

// user adds text from the user.
func (c *conversation) user(text string) { c.add(model.Message{Role: model.RoleUser, Text: text}) }

// replay adds the model's answer, so the next turn sees what it said and called; clipped, so
// a runaway answer is not sent back whole.
func (c *conversation) replay(resp model.Response) {
	if strings.TrimSpace(resp.Text) == "" && len(resp.ToolCalls) == 0 {
		return // an empty answer cannot be replayed: servers reject empty assistant messages
	}
	calls := make([]model.ToolCall, len(resp.ToolCalls))
	for i, tc := range resp.ToolCalls {
		calls[i] = tc
		if len(tc.Arguments) > maxReplayBytes {
			// Still a JSON object: some servers' chat templates parse the arguments.
			calls[i].Arguments = json.RawMessage(fmt.Sprintf(`{"left_out":"arguments of %d bytes"}`, len(tc.Arguments)))
		}
		calls[i].Name = cut(tc.Name, 64)
	}
	c.add(model.Message{Role: model.RoleAssistant, Text: cut(resp.Text, maxReplayRunes), ToolCalls: calls})
}

// result answers one tool call.
func (c *conversation) result(id, text string) {
	if text == "" {
		text = "ok"
	}
	c.add(model.Message{Role: model.RoleTool, ToolCallID: id, Text: text})
}

// screen adds a user message with intro, the element listing and the screenshot, then drops
// the screenshots beyond the latest keep.
func (c *conversation) screen(intro string, o Observation) {
	var b strings.Builder
	b.WriteString(intro)
	if len(o.JPEG) > 0 {
		fmt.Fprintf(&b, "\n\nThe screen now: the screenshot (%dx%d) is attached.", o.Width, o.Height)
	} else {
		b.WriteString("\n\nThe screen now: no screenshot could be taken.")
	}
	if l := strings.TrimSpace(o.Elements); l != "" {
		b.WriteString(" Its elements, one per line: id [kind] \"label\" [left,top,right,bottom] conf, the bbox relative 0-1:\n")
		b.WriteString(cut(l, maxListingRunes))
	} else {
		b.WriteString(" There is no element listing: read the screenshot.")
	}
	m := model.Message{Role: model.RoleUser, Text: b.String()}
	if len(o.JPEG) > 0 {
		m.Images = []model.Image{{MIME: "image/jpeg", Data: o.JPEG}}
	}
	c.add(m)
	c.prune()
}

// prune replaces all but the latest keep screenshots with a note.
func (c *conversation) prune() {
	seen := 0
	for i := len(c.msgs) - 1; i >= 0; i-- {
		m := &c.msgs[i]
		if len(m.Images) == 0 {
			continue
		}
		if seen += len(m.Images); seen > c.keep {
			m.Images = nil
			m.Text += "\n" + imageNote
		}
	}
}
