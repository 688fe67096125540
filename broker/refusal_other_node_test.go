package broker

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A node user refused what its role may do for another node id (another node's context given
// to this node) is told so, not that its role may not do it.
func TestRefusalOfAnotherNodesSubjectSaysSo(t *testing.T) {
	for _, c := range []struct {
		user, subject string
		other         bool
	}{
		{"node-n1", "$KV.corral_nodes.n2", true},
		{"node-n1", "corral.v1.progress.n2.t_1", true},
		{"node-n1", "corral.v1.node.n2.task", false}, // no node may request a node
		{"gateway", "$KV.corral_nodes.n2", false},
		{"node", "$KV.corral_nodes.n2", false}, // the shared node user: no other node's
	} {
		r := refusalOf(c.user, fmt.Errorf("%w: Permissions Violation for Publish to %q", nats.ErrPermissionViolation, c.subject))
		require.NotNil(t, r)
		assert.Equal(t, c.other, r.OtherNode, "%+v", c)
		assert.Equal(t, c.other, strings.Contains(r.Error(), "may do this for its own node id only"), "%+v: %v", c, r)
	}
}
