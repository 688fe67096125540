package broker_test

import "time"

// waitLong bounds every wait for something that should happen, as in package broker's own
// tests (client_test.go): generous for a loaded machine, still bounded.
const waitLong = 15 * time.Second
