package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/corral-farm/corral/broker"
)

// flagSet returns a FlagSet with the flags every command has: --config, --check-config, --log-level.
type flags struct {
	*flag.FlagSet
	config      *string
	checkConfig *bool
	logLevel    *string
	// positional: the command takes arguments besides its flags, and checks them itself;
	// start refuses any for the others.
	positional bool
	// sources says where each flag not on the command line got its value: CORRAL_<FLAG>, or
	// the --config file's key (parse); start's checks name it.
	sources map[string]string
	// onCommandLine holds the flags the command line gave (parse).
	onCommandLine map[string]bool
	// commaLists are the flags whose one value lists several, a,b (commalist.go): a --config
	// file may give them as a YAML list too.
	commaLists map[string]bool
}

func newFlags(name string) *flags {
	fs := flag.NewFlagSet("corral "+name, flag.ContinueOnError)
	f := &flags{FlagSet: fs,
		config:      fs.String("config", "", "YAML file of flag values (keys are flag names)"),
		checkConfig: fs.Bool("check-config", false, "validate the configuration and exit"),
		logLevel:    fs.String("log-level", "info", "log level: debug, info, warn, error"),
	}
	f.Usage = commandUsage(f, "corral "+name+" [flags]", summary(name)) // a command's own replaces it
	return f
}

// parse reads the command line, then fills every flag not given there from CORRAL_<FLAG>
// (upper case, '-' as '_'), then from the --config file. The help asked for (-h) goes to
// standard output; a flag it does not take is told in two lines, not above the whole help,
// which scrolled it away.
func (f *flags) parse(args []string) error {
	var help bytes.Buffer
	f.SetOutput(&help)
	parseErr := f.Parse(args)
	f.SetOutput(nil)
	switch {
	case errors.Is(parseErr, flag.ErrHelp):
		_, _ = os.Stdout.Write(help.Bytes())
		return parseErr
	case parseErr != nil:
		parseErr = valueHint(f.FlagSet, flagHint(f.FlagSet, parseErr))
		name := strings.TrimPrefix(f.Name(), "corral ")
		fmt.Fprintf(os.Stderr, "corral %s: %v\nrun 'corral %s -h' for its flags\n", name, parseErr, name)
		return &usageError{err: parseErr, printed: true}
	}
	set := map[string]bool{}
	f.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	f.onCommandLine = set
	// The config file is read first, so CORRAL_CONFIG must name it before the other variables
	// are read; the file's values still come last.
	fromEnv := ""
	if v := os.Getenv("CORRAL_CONFIG"); !set["config"] && v != "" {
		*f.config, fromEnv = v, fmt.Sprintf("CORRAL_CONFIG=%q", v)
		f.setSource("config", fromEnv)
	}
	var file map[string]any
	if *f.config != "" {
		b, err := os.ReadFile(*f.config)
		if err != nil {
			if fromEnv != "" {
				return fmt.Errorf("config file of %s: %w (unset CORRAL_CONFIG, or point it at a YAML file of flag values)", fromEnv, err)
			}
			return fmt.Errorf("config file: %w", err)
		}
		if file, err = configValues(b); err != nil {
			return fmt.Errorf("config file %s is not valid YAML: %w%s", *f.config, err, yamlHint(err))
		}
		for k := range file {
			if f.Lookup(k) == nil {
				var names []string
				f.VisitAll(func(fl *flag.Flag) { names = append(names, fl.Name) })
				return badValue(fmt.Errorf("config file %s: unknown key %q%s (keys are the flags of 'corral %s -h')",
					*f.config, k, didYouMean(k, names), strings.TrimPrefix(f.Name(), "corral ")))
			}
		}
	}
	var err error
	f.VisitAll(func(fl *flag.Flag) {
		if set[fl.Name] || fl.Name == "config" || err != nil {
			return
		}
		env := "CORRAL_" + strings.ToUpper(strings.ReplaceAll(fl.Name, "-", "_"))
		if v, ok := os.LookupEnv(env); ok {
			if e := fl.Value.Set(v); e != nil {
				err = badValue(fmt.Errorf("%s=%q: %w", env, shownValue(v), explainSet(fl, e)))
			}
			f.setSource(fl.Name, fmt.Sprintf("%s=%q", env, shownValue(v)))
			return
		}
		if v, ok := file[fl.Name]; ok {
			if e := setFromFile(fl, v, f.commaLists[fl.Name]); e != nil {
				err = badValue(fmt.Errorf("config %s: %s: %w", *f.config, fl.Name, e))
			}
			f.setSource(fl.Name, fmt.Sprintf("key %s of the config file %s", fl.Name, *f.config))
		}
	})
	return err
}

// explainSet says what fl takes when setting it failed with err: the flag package's own kinds
// of values say only "parse error".
func explainSet(fl *flag.Flag, err error) error {
	g, ok := fl.Value.(flag.Getter)
	if !ok {
		return err
	}
	var want string
	switch g.Get().(type) {
	case int, int64:
		want = "an integer, e.g. 3"
	case uint, uint64:
		want = "a whole number, 0 or more, e.g. 3"
	case float64:
		want = "a number, e.g. 2.5"
	case bool:
		want = "true or false"
	case time.Duration:
		want = "a duration, e.g. 30s, 5m or 1h30m"
	default:
		return err
	}
	if msg := err.Error(); msg != "parse error" {
		want += " (" + msg + ")"
	}
	return errors.New("want " + want)
}

// logger returns a text logger on stderr at the chosen level.
func (f *flags) logger() (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(*f.logLevel)); err != nil {
		return nil, f.nameSources(badValue(fmt.Errorf("--log-level %q: use debug, info, warn or error", *f.logLevel)))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})), nil
}

// natsFlags are the flags that say how to reach NATS. Secrets come from files (or the
// environment: CORRAL_NATS_PASSWORD), never from arguments.
type natsFlags struct {
	url, context, creds, nkey, user, passwordFile, tlsCert, tlsKey, tlsCA *string
	// of is the command's flags, which know where --nats-url came from (urlSource).
	of *flags
}

func (f *flags) natsFlags() natsFlags {
	return natsFlags{of: f,
		url: f.commaList("nats-url", "", "NATS server URL(s), comma-separated (default: the --nats-context's, else $NATS_URL, else "+
			broker.DefaultURL+")"),
		context: f.String("nats-context", "", "natscli context, a .json file or a context's name, with the URL and credentials: corral up writes "+
			"DATA/nats/admin.json, corral nats-auth one per role (default: $NATS_CONTEXT; "+
			"for the operator commands, else the selected natscli context, else "+localAdminContext+" when it exists)"),
		creds:        f.String("nats-creds", "", "NATS credentials file (JWT and nkey seed)"),
		nkey:         f.String("nats-nkey", "", "NATS nkey seed file"),
		user:         f.String("nats-user", "", "NATS user; its password from --nats-password-file or $CORRAL_NATS_PASSWORD"),
		passwordFile: f.String("nats-password-file", "", "file holding the password of --nats-user"),
		tlsCert:      f.String("nats-tls-cert", "", "client certificate for NATS TLS"),
		tlsKey:       f.String("nats-tls-key", "", "client key for NATS TLS"),
		tlsCA:        f.String("nats-tls-ca", "", "CA certificate to trust for NATS TLS"),
	}
}

// start parses args, builds the logger and runs check (when given), which validates what the
// command would refuse or misread once started: a command runs it before it starts anything,
// and --check-config reports it and asks the command to stop.
func (f *flags) start(args []string, check func() error) (log *slog.Logger, stop bool, err error) {
	if err := f.parse(args); err != nil {
		return nil, false, err
	}
	if !f.positional {
		if err := f.noArgs(); err != nil {
			return nil, false, err
		}
	}
	if log, err = f.logger(); err != nil {
		return nil, false, err
	}
	if check != nil {
		if err := check(); err != nil {
			return nil, false, f.nameSources(err)
		}
	}
	if *f.checkConfig {
		fmt.Fprintln(os.Stderr, "configuration ok")
		return log, true, nil
	}
	return log, false, nil
}

// noArgs refuses arguments besides the flags, for a command that takes none: a word there is a
// mistake (a flag without its dashes, a value after a flag that takes none), not to be ignored.
func (f *flags) noArgs() error {
	if f.NArg() == 0 {
		return nil
	}
	name := strings.TrimPrefix(f.Name(), "corral ")
	return &usageError{err: fmt.Errorf("unexpected argument %q: corral %s takes flags only ('corral %s -h' lists them)", f.Arg(0), name, name)}
}

func (f *flags) setSource(name, source string) {
	if f.sources == nil {
		f.sources = map[string]string{}
	}
	f.sources[name] = source
}

// flagRE finds the flags a check's message names (--sim, --sim-android).
var flagRE = regexp.MustCompile(`--[a-z0-9][a-z0-9-]*`)

// nameSources adds, to each line of a check's err that names a flag whose value did not come
// from the command line, where it came from: a user who typed no --sim must be told that
// CORRAL_SIM or the config file said -5.
func (f *flags) nameSources(err error) error {
	if len(f.sources) == 0 {
		return err
	}
	lines := strings.Split(err.Error(), "\n")
	changed := false
	for i, line := range lines {
		if strings.Contains(line, " came from ") {
			continue // named already (a check that named its sources itself)
		}
		for _, name := range flagRE.FindAllString(line, -1) {
			if src, ok := f.sources[strings.TrimPrefix(name, "--")]; ok {
				lines[i] = line + " (" + name + " came from " + src + ", not the command line)"
				changed = true
				break
			}
		}
	}
	if !changed {
		return err
	}
	return &sourcedError{msg: strings.Join(lines, "\n"), err: err}
}

// sourcedError is a check's error with the sources of its flags named.
type sourcedError struct {
	msg string
	err error
}

func (e *sourcedError) Error() string { return e.msg }
func (e *sourcedError) Unwrap() error { return e.err }

// shownValue is an environment variable's value as errors show it: any URL's password or token
// (a CORRAL_NATS_URL of nats://user:secret@host) replaced as broker.RedactURLs does, also in a
// URL that does not parse. What comes before an '@' in a value that is no URL is hidden too:
// hiding too much is the safe side.
func shownValue(v string) string { return broker.RedactURLs(v) }

// listFlag is a flag the command line may give several times (--site-nodes): a --config file
// may give its values as a YAML list, one item a value. keyed says a value is
// KEY=VALUE[,VALUE...], which the file may also write as a set of keys, KEY: [VALUE, ...].
type listFlag interface {
	configList() (keyed bool)
}

// configList: nats-auth's --node and --site come as lists in a --config file too.
func (*multiFlag) configList() bool { return false }

// setFromFile sets fl from v, the --config file's value of its key: one scalar as it is
// written, or, for a listFlag, a list or (keyed) a set of keys, or, for a comma-list flag
// (commaList), a list whose items it joins with commas. An error says what was wrong and where
// (the item, the key), never in Go's words ("[a=n1 b=n2]").
func setFromFile(fl *flag.Flag, v any, commaList bool) error {
	set := func(s string) error {
		if err := fl.Value.Set(s); err != nil {
			return fmt.Errorf("%q: %w", s, explainSet(fl, err))
		}
		return nil
	}
	lf, isList := fl.Value.(listFlag)
	switch v := v.(type) {
	case nil:
		return errors.New("no value: write one, or leave the key out")
	case []any:
		if commaList {
			s, err := joinCommaList(v)
			if err != nil {
				return err
			}
			return set(s)
		}
		if !isList {
			return fmt.Errorf("a list, and --%s takes one value: write it as the command line takes it", fl.Name)
		}
		if len(v) == 0 {
			return errors.New("an empty list: give an item, or leave the key out")
		}
		for i, item := range v {
			s, err := scalarText(item)
			if err == nil {
				err = set(s)
			}
			if err != nil && lf.configList() && !strings.Contains(s, "=") {
				// [a=n1,n2] is three items in YAML: the comma ends a plain item in brackets.
				err = fmt.Errorf("%w (quote an item that holds a comma: [\"a=n1,n2\"])", err)
			}
			if err != nil {
				return fmt.Errorf("item %d: %w", i+1, err)
			}
		}
		return nil
	case map[string]any, map[any]any:
		switch {
		case commaList:
			return fmt.Errorf("a set of keys, and --%s takes a list of values: write them as a list, [a, b], or as the command line takes them, a,b", fl.Name)
		case !isList:
			return fmt.Errorf("a set of keys, and --%s takes one value: write it as the command line takes it", fl.Name)
		case !lf.configList():
			return fmt.Errorf("a set of keys, and --%s takes a list of values: write them as a list, [VALUE, ...]", fl.Name)
		}
		entries := sortedKeys(v)
		if len(entries) == 0 {
			return errors.New("an empty set of keys: give a key, or leave the key out")
		}
		for _, kv := range entries {
			vals, err := keyedValues(kv.value)
			if err == nil {
				err = set(kv.key + "=" + strings.Join(vals, ","))
			}
			if err != nil {
				return fmt.Errorf("key %s: %w", kv.key, err)
			}
		}
		return nil
	}
	return set(fmt.Sprint(v))
}

// scalarText is a YAML list's item as text; a list or a set of keys in its place is refused.
func scalarText(v any) (string, error) {
	switch v.(type) {
	case nil:
		return "", errors.New("empty (null): write a value or leave the item out")
	case []any:
		return "", errors.New("a list in a list: write each item as one value")
	case map[string]any, map[any]any:
		return "", errors.New("a set of keys in a list: write each item as one value")
	}
	return fmt.Sprint(v), nil
}

// keyedValues are the values of one key of a keyed listFlag's set of keys: a list of scalars or
// one scalar (VALUE or VALUE,VALUE); none for null or an empty list, which the flag refuses.
func keyedValues(v any) ([]string, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case []any:
		out := make([]string, 0, len(v))
		for i, item := range v {
			s, err := scalarText(item)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", i+1, err)
			}
			out = append(out, s)
		}
		return out, nil
	}
	s, err := scalarText(v)
	return []string{s}, err
}

type keyValue struct {
	key   string
	value any
}

// sortedKeys are a YAML set of keys' entries in key order: a map's order would make the
// flag's values, and which of two clashing keys is blamed, change from run to run.
func sortedKeys(m any) []keyValue {
	var out []keyValue
	switch m := m.(type) {
	case map[string]any:
		for k, v := range m {
			out = append(out, keyValue{k, v})
		}
	case map[any]any:
		for k, v := range m {
			out = append(out, keyValue{fmt.Sprint(k), v})
		}
	}
	slices.SortFunc(out, func(a, b keyValue) int { return strings.Compare(a.key, b.key) })
	return out
}
