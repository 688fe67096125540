package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corral-farm/corral/broker"
)

// A farm of nodes on which no gateway ever ran (corral node beside a nats-server, no corral
// gateway or up) has no sessions bucket, which a gateway makes and where the CLI keeps its
// latest task: the write failed in silence, and the next corral call's get_latest_task said
// "No task yet: this session ... called no device tool in the last 24 h". The command says
// instead, as it ends (keepLatest, which an agent task's reaching its node comes to as well),
// that its task is not kept and how to read it. (It does not make the
// bucket: its size and replicas are a gateway's settings.)

// noSessions says whether the farm has no sessions bucket.
func (f *cliFarm) noSessions(ctx context.Context) bool {
	_, err := f.js.KeyValue(ctx, broker.SessionBucket)
	return errors.Is(err, jetstream.ErrBucketNotFound)
}

// notKept tells w that tasks ids are no one's latest task, for want of a sessions bucket.
func notKept(w io.Writer, ids []string) {
	fmt.Fprintf(w, "corral: the latest task (%s) is not kept: this NATS has no %s bucket, which a gateway makes "+
		"(corral gateway or corral up), so get_latest_task and abort_task {} in a later corral call will not find it; "+
		"get_task_result '{\"task_id\":\"%s\"}' reads its record\n", strings.Join(ids, ", "), broker.SessionBucket, ids[len(ids)-1])
}

// keptOrSaid says whether the latest entries of ids can be kept; if not, it says so on
// standard error.
func (f *cliFarm) keptOrSaid(ctx context.Context, ids []string) bool {
	if len(ids) == 0 || !f.noSessions(ctx) {
		return true
	}
	notKept(os.Stderr, ids)
	return false
}
