package device

import "time"

// DragHold is how long a drag holds its start before it moves: the drag tool asks it of every
// driver and says it in its answer, and the Android driver holds at least it. Android's
// long-press timeout is 500 ms; the margin keeps the host's and the device's jitter from
// making a drag a swipe.
const DragHold = 600 * time.Millisecond
