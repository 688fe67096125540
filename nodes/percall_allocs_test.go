package nodes

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// What a node builds for every call (its result's JSON, its record's subject) says what it
// said before it was made cheap, in fewer allocations.

var subjectSink string
var dataSink json.RawMessage

func TestTaskRecordSubjectIsOneAllocation(t *testing.T) {
	m := &natsMirror{node: "n1"}
	if got, want := m.taskRecordSubject("t_abc"), fmt.Sprintf(broker.EventTaskT, "n1", "t_abc"); got != want {
		t.Fatalf("taskRecordSubject = %q, want %q", got, want)
	}
	if raceEnabled {
		return
	}
	if n := testing.AllocsPerRun(100, func() { subjectSink = m.taskRecordSubject("t_abc") }); n > 1 {
		t.Errorf("taskRecordSubject makes %v allocations, want 1", n)
	}
}

func TestResultDataKeepsItsEncoder(t *testing.T) {
	b := &boundDevice{}
	for range 3 { // the second and third take the first's encoder
		data, err := b.marshalData(map[string]string{"source": "<a href=\"x\">&</a>"})
		if err != nil || string(data) != `{"source":"<a href=\"x\">&</a>"}` {
			t.Fatalf("marshalData = %s, %v; want the XML unescaped and no newline", data, err)
		}
	}
	if _, err := b.marshalData(func() {}); err == nil {
		t.Fatal("marshalData of a func: no error")
	}
	if data, err := b.marshalData(map[string]int{"width": 1}); err != nil || string(data) != `{"width":1}` {
		t.Fatalf("marshalData after a failed one = %s, %v", data, err)
	}
	big := strings.Repeat("x", maxKeptEncoderBuffer)
	if data, err := b.marshalData(big); err != nil || len(data) != len(big)+2 {
		t.Fatalf("marshalData of %d bytes: %d bytes, %v", len(big), len(data), err)
	}
	if raceEnabled {
		return
	}
	res := tools.ScreenSizeResult{Width: 1080, Height: 2400, Message: "screen size: 1080x2400 pixels"}
	if n := testing.AllocsPerRun(100, func() { dataSink, _ = b.marshalData(res) }); n > 3 {
		t.Errorf("marshalData of a screen size makes %v allocations, want 3 (the result boxed, its bytes, one in encoding/json)", n)
	}
}
