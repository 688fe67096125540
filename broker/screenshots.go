package broker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ScreenshotBucket is the object store of task screenshots: the screens an agent task's
// steps began and ended on, kept as JPEG for as long as the retention setting says
// (StoreOptions.ScreenshotsMaxAge and ScreenshotsMaxBytes), the oldest dropped first.
const ScreenshotBucket = "corral_screenshots"

// objStream is the stream behind an object store.
func objStream(bucket string) string { return "OBJ_" + bucket }

// screenshotPrefix starts every screenshot's name: tasks/<task id>/<sha256>.jpg.
const screenshotPrefix = "tasks/"

// screenshotName is the object name of a task's screenshot. The name carries the image's
// SHA-256: any node may write the bucket (object subjects do not carry a node), so a reader
// checks the image against the digest in the name it found in a task record, which only the
// task's node can write.
func screenshotName(task string, jpeg []byte) string {
	sum := sha256.Sum256(jpeg)
	return screenshotPrefix + task + "/" + hex.EncodeToString(sum[:]) + ".jpg"
}

// SaveScreenshot keeps a JPEG screenshot of task and returns its name, which the task's
// record carries. The same image saved twice for one task is stored once.
func (s *Stores) SaveScreenshot(ctx context.Context, task string, jpeg []byte) (string, error) {
	if !validToken(task) {
		return "", fmt.Errorf("screenshot of task %q: a task id is letters, digits, '-' and '_'", task)
	}
	name := screenshotName(task, jpeg)
	if info, err := s.Screenshots.GetInfo(ctx, name); err == nil && !info.Deleted {
		return name, nil
	}
	if err := putScreenshot(ctx, s.JS, name, jpeg); err != nil {
		err = explainRefusal(s.JS.Conn(), err)
		return "", fmt.Errorf("save a screenshot of task %s in %s: %w%s", task, ScreenshotBucket, err, screenshotSaveHint(err))
	}
	return name, nil
}

// screenshotSaveHint says what to look at when a screenshot could not be saved: a closed
// connection is its node stopping, not a question of permissions or space.
func screenshotSaveHint(err error) string {
	var api *jetstream.APIError
	switch {
	case errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, nats.ErrConnectionDraining):
		return " (this node's NATS connection is closed: the node is stopping, and the screenshot is not kept)"
	case errors.As(err, &api) && storageFull(api.ErrorCode):
		return " (the bucket is full, or its server's storage is: see --screenshots-max-bytes and the server's JetStream max_file_store)"
	case errors.Is(err, nats.ErrPermissionViolation):
		return fmt.Sprintf(" (this node's NATS user must be allowed to publish $O.%s.>)", ScreenshotBucket)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout):
		// A NATS user refused a subject is told asynchronously: its write just goes unanswered.
		return fmt.Sprintf(" (may this node's NATS user publish $O.%s.>? is the bucket full? see --screenshots-max-bytes)", ScreenshotBucket)
	}
	return ""
}

// storageFull says whether a JetStream error code is a store out of space.
func storageFull(code jetstream.ErrorCode) bool {
	const insufficientResources, storageExceeded, storeFailed, messageTooBig = 10023, 10047, 10077, 10054
	switch code {
	case insufficientResources, storageExceeded, storeFailed, messageTooBig:
		return true
	}
	return false
}

// maxScreenshotBytes bounds a screenshot read back: a scaled JPEG is tens of KiB.
const maxScreenshotBytes = 16 << 20

// Screenshot reads a task's screenshot by the name its record gives, checked against the
// digest in the name. A hub keeps no copies of its edge sites' screenshots (sites.go): one
// it does not hold is read from each site's own store in turn, across the site's link.
func (s *Stores) Screenshot(ctx context.Context, name string) ([]byte, error) {
	want, ok := screenshotDigest(name)
	if !ok {
		return nil, fmt.Errorf("screenshot %q: not a screenshot name (tasks/<task>/<sha256>.jpg, as a task's steps give it)", name)
	}
	b, err := readScreenshot(ctx, s.Screenshots, s.screenshotStream, name, want)
	if !errors.Is(err, ErrNotFound) || len(s.sites) == 0 {
		return b, err
	}
	var failed []error
	for _, site := range s.sites {
		b, serr := s.siteScreenshot(ctx, site, name, want)
		if serr == nil {
			return b, nil
		}
		if !errors.Is(serr, ErrNotFound) {
			failed = append(failed, fmt.Errorf("site %s: %w", site, serr))
		}
	}
	if len(failed) > 0 {
		return nil, fmt.Errorf("screenshot %s is not kept here, and a site that may keep it could not be read (is its link up?): %w", name, errors.Join(failed...))
	}
	return nil, fmt.Errorf("%w; nor at the sites %s", err, strings.Join(s.sites, ", "))
}

// siteScreenshot reads a screenshot from an edge site's store, through its JetStream domain.
func (s *Stores) siteScreenshot(ctx context.Context, site, name, want string) ([]byte, error) {
	s.siteMu.Lock()
	src, ok := s.siteShots[site]
	s.siteMu.Unlock()
	if !ok {
		js, err := jetstream.NewWithDomain(s.JS.Conn(), site)
		if err != nil {
			return nil, err
		}
		if src.obs, err = js.ObjectStore(ctx, ScreenshotBucket); err == nil {
			src.st, err = js.Stream(ctx, objStream(ScreenshotBucket))
		}
		if errors.Is(err, jetstream.ErrBucketNotFound) || errors.Is(err, jetstream.ErrStreamNotFound) {
			return nil, fmt.Errorf("%w: the site keeps no screenshots", ErrNotFound)
		}
		if err != nil {
			return nil, err
		}
		s.siteMu.Lock()
		s.siteShots[site] = src
		s.siteMu.Unlock()
	}
	return readScreenshot(ctx, src.obs, src.st, name, want)
}

// screenshotSource is an edge site's screenshot store and the stream behind it.
type screenshotSource struct {
	obs jetstream.ObjectStore
	st  jetstream.Stream
}

// readScreenshot reads a screenshot from obs, checked against its digest want. Its chunks are
// read from st, the stream behind obs, by direct gets (no consumer): one for a screenshot
// under 128 KiB, and a screenshot whose chunks were dropped (the store was full) reads as gone
// at once rather than waiting for chunks that will never come.
func readScreenshot(ctx context.Context, obs jetstream.ObjectStore, st jetstream.Stream, name, want string) ([]byte, error) {
	gone := func() error {
		return fmt.Errorf("screenshot %s: %w: it is older than the retention setting (--screenshots-max-age, --screenshots-max-bytes) or was never saved", name, ErrNotFound)
	}
	info, err := obs.GetInfo(ctx, name)
	switch {
	case errors.Is(err, jetstream.ErrObjectNotFound):
		return nil, gone()
	case err != nil:
		return nil, fmt.Errorf("read screenshot %s: %w", name, err)
	case info.Size > maxScreenshotBytes:
		return nil, fmt.Errorf("screenshot %s: %d bytes, more than a screenshot has (%d at most)", name, info.Size, maxScreenshotBytes)
	}
	chunks := "$O." + ScreenshotBucket + ".C." + info.NUID
	b := make([]byte, 0, info.Size)
	for seq := uint64(1); uint64(len(b)) < info.Size; {
		m, err := st.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(chunks))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return nil, gone()
		}
		if err != nil {
			return nil, fmt.Errorf("read screenshot %s: %w", name, err)
		}
		b, seq = append(b, m.Data...), m.Sequence+1
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != want {
		return nil, fmt.Errorf("screenshot %s: its content does not match its name's digest: its oldest chunks were dropped, or it was overwritten, not by the task's node", name)
	}
	return b, nil
}

// ScreenshotOfTask says whether a screenshot's name is one of task's.
func ScreenshotOfTask(name, task string) bool {
	return strings.HasPrefix(name, screenshotPrefix+task+"/")
}

// screenshotDigest is the hex SHA-256 a screenshot's name carries.
func screenshotDigest(name string) (string, bool) {
	task, file := path.Split(strings.TrimPrefix(name, screenshotPrefix))
	digest, ok := strings.CutSuffix(file, ".jpg")
	if !strings.HasPrefix(name, screenshotPrefix) || !ok || len(digest) != 2*sha256.Size || !validToken(strings.TrimSuffix(task, "/")) {
		return "", false
	}
	if _, err := hex.DecodeString(digest); err != nil {
		return "", false
	}
	return digest, true
}
