package broker

import (
	"fmt"
	"regexp"
	"testing"
)

// What every tool call builds on the gateway (a task id, the node endpoint's subject, the
// latest-task key) costs one allocation each, and says the same as before it was made cheap.

// sink keeps what a measured function returns on the heap, as its callers do.
var sink string

// allocsAtMost fails t when fn makes more than want allocations a run (not under -race, whose
// instrumentation allocates).
func allocsAtMost(t *testing.T, what string, want float64, fn func()) {
	t.Helper()
	if raceEnabled {
		return
	}
	if n := testing.AllocsPerRun(100, fn); n > want {
		t.Errorf("%s makes %v allocations, want %v", what, n, want)
	}
}

func TestTaskIDIsOneAllocation(t *testing.T) {
	idRE := regexp.MustCompile(`^t_[a-z2-7]{16}$`)
	seen := map[string]bool{}
	for range 100 {
		id := NewTaskID()
		if !idRE.MatchString(id) || seen[id] {
			t.Fatalf("task id %q: want t_ and 16 lowercase base32 characters, unique", id)
		}
		seen[id] = true
	}
	if h := NewLeaseHandle(); !regexp.MustCompile(`^lease_[a-z2-7]{26}$`).MatchString(h) {
		t.Fatalf("lease handle %q: want lease_ and 26 lowercase base32 characters", h)
	}
	allocsAtMost(t, "NewTaskID", 1, func() { sink = NewTaskID() })
}

func TestNodeEndpointIsOneAllocation(t *testing.T) {
	if got, want := nodeEndpoint("n1", EndpointTask), fmt.Sprintf(NodeGroupT, "n1")+"."+EndpointTask; got != want {
		t.Fatalf("nodeEndpoint = %q, want %q", got, want)
	}
	node, endpoint := "n1", EndpointTask
	allocsAtMost(t, "nodeEndpoint", 1, func() { sink = nodeEndpoint(node, endpoint) })
}

func TestEscapedTokenIsOneAllocation(t *testing.T) {
	who := "holder:anonymous (bench client) 0a1b2c3d4e"
	allocsAtMost(t, "Token of a holder", 1, func() { sink = Token(who) })
}
