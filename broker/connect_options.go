package broker

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"

	"github.com/nats-io/nats.go"
)

// Setting names a connection setting that reads a file, in the errors about it.
type Setting string

// The settings of ConnectOptions that read a file.
const (
	SettingPasswordFile Setting = "NATS password file"
	SettingCreds        Setting = "NATS credentials file"
	SettingNKey         Setting = "NATS nkey seed file"
	SettingTLSCert      Setting = "NATS TLS client certificate and key"
	SettingTLSCA        Setting = "NATS TLS CA file"
)

// SettingError is a setting whose file cannot be used: what reading it said, and what to give
// instead. Connect returns it before it dials; corral --check-config shows the same words, with
// Source naming where the setting came from (a flag, a context's field).
type SettingError struct {
	Setting Setting
	Source  string // "": the Setting's name
	Err     error
	Hint    string
}

func (e *SettingError) Error() string { return cmp.Or(e.Source, string(e.Setting)) + ": " + e.Reason() }
func (e *SettingError) Unwrap() error { return e.Err }

// Reason is the error without the setting's name: what was wrong, and the hint.
func (e *SettingError) Reason() string { return fmt.Sprintf("%v (%s)", e.Err, e.Hint) }

// NATSOptions returns the nats.go options that o, as Resolved returns it, makes: its name,
// credentials, inbox prefix, TLS and in-process server. Each file an option reads is read now,
// as nats.go would while connecting, so that a file that is missing or not what it should be
// is told before anything dials: the errors, one *SettingError a setting, are joined. Connect
// and corral --check-config both take their options from here, so that the check refuses what
// a start would.
func (o ConnectOptions) NATSOptions() ([]nats.Option, error) {
	opts := []nats.Option{nats.Name(o.Name)}
	var errs []error
	// use keeps opt, once applying it to nats.go's defaults (when most options read their
	// files) and then read (what the option leaves for the connection to read) passed.
	applied := nats.GetDefaultOptions()
	use := func(s Setting, opt nats.Option, err error, read func() error, hint func(error) string) {
		if err == nil {
			err = opt(&applied)
		}
		if err == nil && read != nil {
			err = read()
		}
		if err != nil {
			errs = append(errs, &SettingError{Setting: s, Err: err, Hint: hint(err)})
			return
		}
		opts = append(opts, opt)
	}
	if o.CredsFile != "" {
		// The option keeps the file's name: the JWT and the seed are read as it logs in.
		use(SettingCreds, nats.UserCredentials(o.CredsFile), nil, func() error {
			if _, err := applied.UserJWT(); err != nil {
				return err
			}
			_, err := applied.SignatureCB([]byte("check"))
			return err
		}, credsHint)
	}
	if o.NKeyFile != "" {
		nk, err := nats.NkeyOptionFromSeed(o.NKeyFile) // reads the seed
		use(SettingNKey, nk, err, nil, hint("give a file holding a user's nkey seed, SU…"))
	}
	if o.User != "" {
		opts = append(opts, nats.UserInfo(o.User, o.password))
	}
	if o.InboxPrefix != "" {
		opts = append(opts, nats.CustomInboxPrefix(o.InboxPrefix))
	}
	if o.TLSCert != "" || o.TLSKey != "" {
		use(SettingTLSCert, nats.ClientCert(o.TLSCert, o.TLSKey), nil, nil, hint("give a PEM certificate and its key, both"))
	}
	if o.TLSCA != "" {
		use(SettingTLSCA, nats.RootCAs(o.TLSCA), nil, nil, hint("give a PEM file of the CA certificates to trust"))
	}
	if o.InProcess != nil {
		// No write deadline on an in-process pipe: setting one starts and stops a timer on
		// every flush (two allocations a write), and a pipe write cannot stall on a network,
		// only on the server in this process, which closes the pipe when it stops.
		opts = append(opts, nats.InProcessServer(o.InProcess), nats.FlusherTimeout(0))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return opts, nil
}

// hint is a hint whatever the error.
func hint(h string) func(error) string { return func(error) string { return h } }

// credsHint is what to do about a credentials file that cannot be read, or is not one.
func credsHint(err error) string {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return "give the path of a NATS credentials file this process may read"
	}
	return "it is not a NATS credentials file (a user JWT and its nkey seed, as nsc generate creds writes): check the file, " +
		"or give --nats-context with a role's context (corral up writes them into its --data directory's nats/)"
}
