package main

import "fmt"

// A lease expires after --lease-ttl unused, and at --lease-max whatever its use (the earlier
// of the two: actors' grant and renew). A --lease-ttl given above --lease-max can never apply,
// which is a contradiction to refuse; --lease-max alone below the default --lease-ttl is not:
// leases then simply end at --lease-max.

// checkLeaseFlags refuses a --lease-ttl that was given (on the command line, in
// CORRAL_LEASE_TTL or the config file) longer than --lease-max.
func checkLeaseFlags(f *flags, s nodeSettings) error {
	_, fromElsewhere := f.sources["lease-ttl"]
	if !f.onCommandLine["lease-ttl"] && !fromElsewhere {
		return nil
	}
	if ttl, most := *s.leaseTTL, *s.leaseMax; ttl > most && most > 0 {
		return badValue(fmt.Errorf("--lease-ttl %s can never apply: --lease-max %s ends every lease first (a lease ends after --lease-ttl unused, "+
			"and at --lease-max whatever its use); give a --lease-ttl of %s or less, or a longer --lease-max", ttl, most, most))
	}
	return nil
}
