package broker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ErrNoFarm reports a store of Corral's that does not exist: no farm has started on this NATS
// (or none whose gateway made its stores).
var ErrNoFarm = errors.New("no Corral farm on this NATS: start `corral up` or a gateway first")

// Store names one of the stores of Stores, for OpenStores.
type Store int

// The stores OpenStores opens at once when named.
const (
	RegistryStore Store = iota
	LeasesStore
	SessionsStore
	NodesStore
	CalibrationsStore
	EventsStore
	ScreenshotsStore
)

// ClientStores are the stores a Client reads as it starts and in its calls: the registry it
// watches, the event stream its task records come on, the screenshots get_task_result reads.
var ClientStores = []Store{RegistryStore, EventsStore, ScreenshotsStore}

// OpenStores binds to the farm's stores as they are, making and changing none: what a command
// of the CLI does, that reads one or two of them, where EnsureStores takes some 20 JetStream
// requests and a right to create stores that an operator's NATS user lacks. The stores named
// in now are looked up at once, side by side (one request each, in the time of one); the other
// buckets on their first use; the other streams are not opened (their fields stay nil). A
// store that does not exist fails with ErrNoFarm.
func OpenStores(ctx context.Context, nc *nats.Conn, now ...Store) (*Stores, error) {
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(publishAckTimeout))
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	s := &Stores{JS: js, siteShots: map[string]screenshotSource{}}
	buckets := []struct {
		store Store
		field *jetstream.KeyValue
		name  string
	}{
		{RegistryStore, &s.Registry, RegistryBucket}, {LeasesStore, &s.Leases, LeaseBucket}, {SessionsStore, &s.Sessions, SessionBucket},
		{NodesStore, &s.Nodes, NodeBucket}, {CalibrationsStore, &s.Calibrations, CalibrationBucket},
	}
	for _, b := range buckets {
		*b.field = newLazyKV(js, b.name)
	}
	// NATS refusing this user a lookup would leave it to wait for its timeout: the refusal
	// ends it at once, and is the failure to tell (as in EnsureStores).
	ctx, stopWatch := watchRefusalOf(ctx, nc, func(subject string) bool { return strings.HasPrefix(subject, jsAPI) })
	defer stopWatch()
	var (
		wg   sync.WaitGroup
		errs []*error // in the order of now: the first is told
	)
	lookUp := func(open func(context.Context) error) {
		slot := new(error)
		errs = append(errs, slot)
		wg.Go(func() {
			if err := open(ctx); err != nil {
				if r, ok := context.Cause(ctx).(*RefusedError); ok {
					err = r
				}
				*slot = err
			}
		})
	}
	for _, w := range now {
		switch w {
		case EventsStore:
			lookUp(func(ctx context.Context) (err error) {
				s.Events, err = lookUpStream(ctx, js, EventStream)
				return err
			})
		case ScreenshotsStore:
			lookUp(func(ctx context.Context) (err error) {
				s.screenshotStream, err = lookUpStream(ctx, js, objStream(ScreenshotBucket))
				return err
			})
			lookUp(func(ctx context.Context) (err error) {
				if s.Screenshots, err = js.ObjectStore(ctx, ScreenshotBucket); err != nil {
					return storeMissing("object store "+ScreenshotBucket, err)
				}
				return nil
			})
		default:
			for _, b := range buckets {
				if b.store == w {
					lookUp(func(ctx context.Context) error { _, err := (*b.field).(*lazyKV).open(ctx); return err })
				}
			}
		}
	}
	wg.Wait()
	for _, err := range errs {
		if *err != nil {
			return nil, *err
		}
	}
	return s, nil
}

// lookUpStream opens an existing stream by name.
func lookUpStream(ctx context.Context, js jetstream.JetStream, name string) (jetstream.Stream, error) {
	st, err := js.Stream(ctx, name)
	if err != nil {
		return nil, storeMissing("stream "+name, err)
	}
	return st, nil
}

// storeMissing says what store what failed to open, as ErrNoFarm when it does not exist.
func storeMissing(what string, err error) error {
	if errors.Is(err, jetstream.ErrStreamNotFound) || errors.Is(err, jetstream.ErrBucketNotFound) {
		return fmt.Errorf("%w (%s does not exist)", ErrNoFarm, what)
	}
	return fmt.Errorf("%s: %w", what, err)
}
