package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/corral-farm/corral/broker"
)

// holderLease is a holder's lease handle on the command line (corral release's, corral arm
// recover's and calibrate's): from $CORRAL_LEASE (as corral call takes it) or --lease-file,
// never from the command line, where process listings show it, and never printed.
type holderLease struct {
	handle, file *string
}

// leaseFlags are --lease and --lease-file; of says whose handle, fileHelp what the file gives.
func (o *operatorFlags) leaseFlags(of, fileHelp string) holderLease {
	return holderLease{
		handle: o.String("lease", "", "the lease handle "+of+", from $CORRAL_LEASE only (or a --config file): "+
			"it is the holder's secret, and on the command line process listings show it, so the command line is refused"),
		file: o.String("lease-file", "", fileHelp),
	}
}

// armLeaseFlags are corral arm's --lease and --lease-file.
func (o *operatorFlags) armLeaseFlags() holderLease {
	return o.leaseFlags("of a rig you hold", "file holding the lease handle of a rig you hold")
}

// check refuses the handle on the command line and reads --lease-file.
func (l holderLease) check(o *operatorFlags) error {
	if err := secretNotOnArgv(o.FlagSet, "lease", "--lease-file FILE or $CORRAL_LEASE"); err != nil {
		return err
	}
	*l.handle = strings.TrimSpace(*l.handle)
	if *l.file == "" {
		return nil
	}
	if *l.handle != "" {
		return badValue(errors.New("give the lease handle once: $CORRAL_LEASE or --lease-file"))
	}
	var err error
	*l.handle, err = readSecretFile("--lease-file", *l.file)
	return err
}

// args are the tool's arguments for serial, with the lease when one was given.
func (l holderLease) args(serial string) map[string]any {
	a := map[string]any{"serial": serial}
	if *l.handle != "" {
		a["lease"] = *l.handle
	}
	return a
}

// refused adds what to do to a refusal of the rig's lease: a rig a lease holds (busy) takes
// its holder's handle, or an operator revokes the lease first; a handle that does not hold it
// (stale_lease) is not the rig's. Other errors, busy ones without a lease among them, are as
// the rig said them.
func (l holderLease) refused(err error, serial string) error {
	msg := err.Error()
	switch {
	case leaseBusy(msg):
		return fmt.Errorf("%w\n(%s is held: its holder gives the handle with $CORRAL_LEASE or --lease-file FILE; "+
			"an operator revokes the lease first: corral release %s --force)", err, serial, serial)
	case *l.handle != "" && strings.Contains(msg, "("+broker.CodeStaleLease+")"):
		return fmt.Errorf("%w\n(the lease given ($CORRAL_LEASE or --lease-file) does not hold %s: `corral leases` lists the leases held)", err, serial)
	}
	return err
}

// leaseBusy reports whether msg refuses a call as busy because a lease holds the device, in the
// gateway's words for it (mcp/result.go): "Held by HOLDER until …", or "You hold it (…" for
// the caller's own. A task run without a lease, or the gateway's own "Agent is already
// running" refusal, is busy with no lease to give or revoke.
func leaseBusy(msg string) bool {
	return strings.Contains(msg, "("+broker.CodeBusy+")") &&
		(strings.Contains(msg, ". Held by ") || strings.Contains(msg, ". You hold it ("))
}
