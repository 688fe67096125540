package main

// badValue marks err, a refusal of a flag's value (from the command line, CORRAL_<FLAG> or the
// --config file), as a usage error: the command exits 2 for it, as it does for a value the flag
// package cannot parse (--limit abc), not 1 as for a failure of the work. Nil stays nil.
func badValue(err error) error {
	if err == nil {
		return nil
	}
	return &usageError{err: err}
}
