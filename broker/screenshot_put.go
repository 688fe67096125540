package broker

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// screenshotChunk is the size of a screenshot's chunks, nats.go's object store's default.
const screenshotChunk = 128 << 10

// screenshotMaxMsg bounds a message of the screenshots' store (its MaxMsgSize): a chunk, or an
// object's metadata, with room; any node may write the store, and its NATS user may publish
// messages as large as vision requests (embedded.MaxPayload).
const screenshotMaxMsg = 2 * screenshotChunk

// putScreenshot writes an object into the screenshots' store as nats.go's ObjectStore.Put does
// (its chunks under a new id, then its metadata, which every object store reader takes), but
// without the rollup header Put sets on the metadata: the store refuses rollups (streams.go), as
// one from any node would purge every screenshot. Without it a name written twice keeps both
// metadata messages, and readers take the last (GetInfo); screenshots are written once anyway
// (their names carry their digest), and the old chunks age out with the rest.
func putScreenshot(ctx context.Context, js jetstream.JetStream, name string, data []byte) error {
	id := rand.Text() // a new chunk subject: nats.go's NUID, but any token does
	chunks := "$O." + ScreenshotBucket + ".C." + id
	var acks []jetstream.PubAckFuture
	n := 0
	for off := 0; off < len(data); off += screenshotChunk {
		f, err := js.PublishMsgAsync(&nats.Msg{Subject: chunks, Data: data[off:min(off+screenshotChunk, len(data))]})
		if err != nil {
			return closedConn(js.Conn(), err)
		}
		acks, n = append(acks, f), n+1
	}
	sum := sha256.Sum256(data)
	meta, err := json.Marshal(jetstream.ObjectInfo{
		ObjectMeta: jetstream.ObjectMeta{Name: name, Opts: &jetstream.ObjectMetaOptions{ChunkSize: screenshotChunk}},
		Bucket:     ScreenshotBucket, NUID: id, Size: uint64(len(data)), Chunks: uint32(n),
		ModTime: time.Now().UTC(), Digest: "SHA-256=" + base64.URLEncoding.EncodeToString(sum[:]),
	})
	if err != nil {
		return err
	}
	// The chunks first: a reader that finds the metadata finds them all.
	for _, f := range acks {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return fmt.Errorf("chunk: %w", err)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	subject := "$O." + ScreenshotBucket + ".M." + base64.URLEncoding.EncodeToString([]byte(name))
	if _, err := js.Publish(ctx, subject, meta); err != nil {
		return fmt.Errorf("metadata: %w", err)
	}
	return nil
}

// closedConn is err, or nats.ErrConnectionClosed or ErrConnectionDraining when nc is so:
// nats.go's asynchronous publish says it only in words (screenshotSaveHint tells the cause).
func closedConn(nc *nats.Conn, err error) error {
	switch {
	case nc.IsClosed():
		return nats.ErrConnectionClosed
	case nc.IsDraining():
		return nats.ErrConnectionDraining
	}
	return err
}
