package broker

import (
	"slices"
	"testing"
)

// A hub's registry, leases and event stream source each site's, read through its domain;
// nothing else does. A process that names no sites keeps the sources the stores have, one that
// names others changes them, and a bad site name is refused.
func TestStoresSourceSites(t *testing.T) {
	s := openStoresWith(t, StoreOptions{Sites: []string{"paris", "tokyo"}})
	sources := func(stream string) []string {
		st, err := s.JS.Stream(t.Context(), stream)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, src := range st.CachedInfo().Config.Sources {
			if src.Name != stream || src.External == nil {
				t.Errorf("%s sources %s (external %v): want its own name at a site", stream, src.Name, src.External)
				continue
			}
			out = append(out, src.External.APIPrefix)
		}
		return out
	}
	both := []string{"$JS.paris.API", "$JS.tokyo.API"}
	for _, stream := range []string{kvStream(RegistryBucket), kvStream(LeaseBucket), EventStream} {
		if got := sources(stream); !slices.Equal(got, both) {
			t.Errorf("%s sources %v, want %v", stream, got, both)
		}
	}
	for _, stream := range []string{kvStream(SessionBucket), kvStream(NodeBucket), kvStream(CalibrationBucket), objStream(ScreenshotBucket)} {
		if got := sources(stream); len(got) != 0 {
			t.Errorf("%s sources %v: it stays where it is written", stream, got)
		}
	}
	nc := s.JS.Conn()
	reopen := func(o StoreOptions) error { _, err := EnsureStores(t.Context(), nc, o); return err }
	if err := reopen(StoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := sources(EventStream); !slices.Equal(got, both) {
		t.Errorf("after a process naming no sites: %v, want %v kept", got, both)
	}
	if err := reopen(StoreOptions{Sites: []string{"paris"}}); err != nil {
		t.Fatal(err)
	}
	if got := sources(kvStream(RegistryBucket)); !slices.Equal(got, []string{"$JS.paris.API"}) {
		t.Errorf("after a gateway naming paris alone: %v", got)
	}
	if err := reopen(StoreOptions{Sites: []string{"par.is"}}); err == nil {
		t.Error("a site named par.is was accepted")
	}
}
