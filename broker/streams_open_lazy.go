package broker

import (
	"context"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
)

// lazyKV is a bucket of OpenStores, looked up on its first use (one JetStream request), so
// that a command pays only for the buckets it reads. A failed lookup is tried again on the
// next use.
type lazyKV struct {
	js     jetstream.JetStream
	bucket string

	mu sync.Mutex
	kv jetstream.KeyValue
}

var _ jetstream.KeyValue = (*lazyKV)(nil)

func newLazyKV(js jetstream.JetStream, bucket string) *lazyKV { return &lazyKV{js: js, bucket: bucket} }

// open looks the bucket up, once it is found.
func (l *lazyKV) open(ctx context.Context) (jetstream.KeyValue, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.kv != nil {
		return l.kv, nil
	}
	kv, err := l.js.KeyValue(ctx, l.bucket)
	if err != nil {
		return nil, storeMissing("key-value bucket "+l.bucket, err)
	}
	if _, bounded := nodeBucketLimits(l.bucket); bounded {
		kv = boundedKV{kv} // its writes over the bounds say so, as EnsureStores' do
	}
	l.kv = kv
	return kv, nil
}

// kvDo runs f on the bucket, once looked up: each of lazyKV's methods is one.
func kvDo[T any](ctx context.Context, l *lazyKV, f func(jetstream.KeyValue) (T, error)) (T, error) {
	kv, err := l.open(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	return f(kv)
}

// kvRun is kvDo for the methods that return only an error.
func kvRun(ctx context.Context, l *lazyKV, f func(jetstream.KeyValue) error) error {
	kv, err := l.open(ctx)
	if err != nil {
		return err
	}
	return f(kv)
}

func (l *lazyKV) Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error) {
	return kvDo(ctx, l, func(kv jetstream.KeyValue) (jetstream.KeyValueEntry, error) { return kv.Get(ctx, key) })
}

func (l *lazyKV) GetRevision(ctx context.Context, key string, revision uint64) (jetstream.KeyValueEntry, error) {
	return kvDo(ctx, l, func(kv jetstream.KeyValue) (jetstream.KeyValueEntry, error) {
		return kv.GetRevision(ctx, key, revision)
	})
}

func (l *lazyKV) Put(ctx context.Context, key string, value []byte) (uint64, error) {
	return kvDo(ctx, l, func(kv jetstream.KeyValue) (uint64, error) { return kv.Put(ctx, key, value) })
}

func (l *lazyKV) PutString(ctx context.Context, key string, value string) (uint64, error) {
	return kvDo(ctx, l, func(kv jetstream.KeyValue) (uint64, error) { return kv.PutString(ctx, key, value) })
}

func (l *lazyKV) Create(ctx context.Context, key string, value []byte, opts ...jetstream.KVCreateOpt) (uint64, error) {
	return kvDo(ctx, l, func(kv jetstream.KeyValue) (uint64, error) { return kv.Create(ctx, key, value, opts...) })
}

func (l *lazyKV) Update(ctx context.Context, key string, value []byte, revision uint64) (uint64, error) {
	return kvDo(ctx, l, func(kv jetstream.KeyValue) (uint64, error) { return kv.Update(ctx, key, value, revision) })
}

func (l *lazyKV) Delete(ctx context.Context, key string, opts ...jetstream.KVDeleteOpt) error {
	return kvRun(ctx, l, func(kv jetstream.KeyValue) error { return kv.Delete(ctx, key, opts...) })
}

func (l *lazyKV) Purge(ctx context.Context, key string, opts ...jetstream.KVDeleteOpt) error {
	return kvRun(ctx, l, func(kv jetstream.KeyValue) error { return kv.Purge(ctx, key, opts...) })
}

func (l *lazyKV) Watch(ctx context.Context, keys string, opts ...jetstream.WatchOpt) (jetstream.KeyWatcher, error) {
	return kvDo(ctx, l, func(kv jetstream.KeyValue) (jetstream.KeyWatcher, error) { return kv.Watch(ctx, keys, opts...) })
}

func (l *lazyKV) WatchAll(ctx context.Context, opts ...jetstream.WatchOpt) (jetstream.KeyWatcher, error) {
	return kvDo(ctx, l, func(kv jetstream.KeyValue) (jetstream.KeyWatcher, error) { return kv.WatchAll(ctx, opts...) })
}

func (l *lazyKV) WatchFiltered(ctx context.Context, keys []string, opts ...jetstream.WatchOpt) (jetstream.KeyWatcher, error) {
	return kvDo(ctx, l, func(kv jetstream.KeyValue) (jetstream.KeyWatcher, error) { return kv.WatchFiltered(ctx, keys, opts...) })
}

func (l *lazyKV) Keys(ctx context.Context, opts ...jetstream.WatchOpt) ([]string, error) {
	return kvDo(ctx, l, func(kv jetstream.KeyValue) ([]string, error) { return kv.Keys(ctx, opts...) })
}

func (l *lazyKV) ListKeys(ctx context.Context, opts ...jetstream.WatchOpt) (jetstream.KeyLister, error) {
	return kvDo(ctx, l, func(kv jetstream.KeyValue) (jetstream.KeyLister, error) { return kv.ListKeys(ctx, opts...) })
}

func (l *lazyKV) ListKeysFiltered(ctx context.Context, filters ...string) (jetstream.KeyLister, error) {
	return kvDo(ctx, l, func(kv jetstream.KeyValue) (jetstream.KeyLister, error) { return kv.ListKeysFiltered(ctx, filters...) })
}

func (l *lazyKV) History(ctx context.Context, key string, opts ...jetstream.WatchOpt) ([]jetstream.KeyValueEntry, error) {
	return kvDo(ctx, l, func(kv jetstream.KeyValue) ([]jetstream.KeyValueEntry, error) { return kv.History(ctx, key, opts...) })
}

// Bucket names the bucket without looking it up.
func (l *lazyKV) Bucket() string { return l.bucket }

func (l *lazyKV) PurgeDeletes(ctx context.Context, opts ...jetstream.KVPurgeOpt) error {
	return kvRun(ctx, l, func(kv jetstream.KeyValue) error { return kv.PurgeDeletes(ctx, opts...) })
}

func (l *lazyKV) Status(ctx context.Context) (jetstream.KeyValueStatus, error) {
	return kvDo(ctx, l, func(kv jetstream.KeyValue) (jetstream.KeyValueStatus, error) { return kv.Status(ctx) })
}
