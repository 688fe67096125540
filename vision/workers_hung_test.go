package vision

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// markHung names only the workers it found hung anew: the client warns of each once.
func TestMarkHungNamesOnlyTheNewlyHung(t *testing.T) {
	w := newWorkers()
	w.answered("A")
	assert.Equal(t, []string{"A", "B"}, w.markHung("A", "B"))
	assert.Empty(t, w.markHung("A", "B"), "hung already")
	w.answered("A") // back
	assert.Equal(t, []string{"A"}, w.markHung("A", "B"))
}
