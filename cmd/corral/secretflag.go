package main

import (
	"flag"
	"fmt"
)

// secretNotOnArgv refuses a secret's flag given on the command line, where process listings
// and shell history show it. The flag stays defined so that $CORRAL_<FLAG> (and a --config
// file) still set it. The error (a usage error: badValue) names where to give it instead, never
// the value.
func secretNotOnArgv(fs *flag.FlagSet, name, instead string) error {
	var given bool
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	if !given {
		return nil
	}
	return badValue(fmt.Errorf("--%s takes no value on the command line: it is a secret, and process listings and shell history show arguments; give it with %s", name, instead))
}
