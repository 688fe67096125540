package mcp_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/corral-farm/corral/internal/farmtest"
)

// Every progress and logging notification of a call comes on the stream of the POST that
// carried it, before its answer, even while the session holds a GET stream open: mcp-go sent
// them through the session's one channel, which both streams read, and about half of them
// landed on the GET stream.
func TestCallNotificationsComeOnTheirPOSTStream(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	g, url, _ := wireGateway(t, f)
	w := &waitFarm{f: f, serial: f.Devices()[0].Serial, url: url}
	holder, handle := w.hold(t)
	s := openWireSession(t, url)
	get := s.openGET(t)

	// Calls that wait for the held device (a waiting notification every tellEvery), then are
	// refused as busy.
	id := 10
	for i := range 3 {
		id++
		a := s.post(t, acceptStream, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"home","arguments":{"serial":%q,"wait_seconds":0.5},"_meta":{"progressToken":"wait-%d"}}}`, id, w.serial, i))
		progress := a.count("notifications/progress")
		assert.True(t, a.answers(id), "call %d: the answer is not the last message of its POST: %v", i, a.msgs)
		assert.Positive(t, progress, "call %d: no progress on its POST stream", i)
		t.Logf("call %d: %d progress notifications on its POST stream", i, progress)
	}
	farmtest.MustCall(t, holder, "release_device", map[string]any{"lease": handle})
	// Calls that report their own progress: with a token as progress, without one as logging
	// messages (the session asked for info).
	for i, token := range []string{"sleep", ""} {
		id++
		a := s.post(t, acceptStream, sleepCall(id, w.serial, 0.3, token))
		progress, logs := a.count("notifications/progress"), a.count("notifications/message")
		assert.True(t, a.answers(id), "sleep %d: the answer is not the last message of its POST: %v", i, a.msgs)
		assert.Positive(t, progress+logs, "sleep %d: no notification on its POST stream: %v", i, a.msgs)
		t.Logf("sleep %d: %d progress, %d logging notifications on its POST stream", i, progress, logs)
	}

	// Anything sent before the marker on the session's channel reached the GET stream before it.
	assert.Empty(t, get.after(t, g.MCPServer(), s.id, "marker"), "notifications on the GET stream")
}
