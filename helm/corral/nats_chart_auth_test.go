package chart_test

// The bundled NATS's users: one per role, with broker.PermissionsFor's subject permissions
// (files/nats-permissions.json, written from broker/auth.go by make chart-assets), passwords in
// a Secret made once and read back on upgrade, handed to each pod as a file of its role's key
// only; and the NetworkPolicies around NATS, the gateways and the nodes.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
)

var updateNATSPermissions = flag.Bool("update-nats-permissions", false,
	"write files/nats-permissions.json from broker.PermissionsFor (make chart-assets does)")

// permissionsFile is the chart's copy of the NATS users' permissions.
const permissionsFile = "files/nats-permissions.json"

// natsPermissions are a user's permissions in nats-server's configuration terms.
type natsPermissions struct {
	Publish        *natsSubjects  `json:"publish,omitempty"`
	Subscribe      *natsSubjects  `json:"subscribe,omitempty"`
	AllowResponses *natsResponses `json:"allow_responses,omitempty"`
}

// natsResponses lets a user answer requests: one answer each, within expires.
type natsResponses struct {
	Max     int    `json:"max"`
	Expires string `json:"expires"`
}

type natsSubjects struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

type natsUser struct {
	Role        broker.Role     `json:"role"`
	User        string          `json:"user"`
	Permissions natsPermissions `json:"permissions"`
}

type natsPermissionsDoc struct {
	About string     `json:"about"`
	Users []natsUser `json:"users"`
	Leaf  natsLeaf   `json:"leaf"`
}

// natsLeaf is the leaf user every edge site of a hub connects as, and the subjects no site's
// link carries.
type natsLeaf struct {
	User        string          `json:"user"`
	Permissions natsPermissions `json:"permissions"`
	Local       []string        `json:"local"`
}

// wantNATSPermissions is what files/nats-permissions.json must hold: every role of
// broker.Roles with broker.PermissionsFor(role, AnyNode) (one node user shared by every node),
// and the edge sites' leaf user with broker.LeafPermissions(AnyNode) (one shared by every site).
func wantNATSPermissions(t *testing.T) []byte {
	t.Helper()
	doc := natsPermissionsDoc{About: "Made by make chart-assets from broker.PermissionsFor (broker/auth.go); " +
		"do not edit: helm/corral/nats_chart_auth_test.go fails when it differs."}
	responses := func(p broker.Permissions) *natsResponses {
		if !p.AllowResponses {
			return nil
		}
		return &natsResponses{Max: 1, Expires: embedded.Permissions(p).ResponseExpires().String()}
	}
	subjects := func(allow, deny []string) *natsSubjects {
		if len(allow)+len(deny) == 0 {
			return nil
		}
		return &natsSubjects{Allow: allow, Deny: deny}
	}
	for _, r := range broker.Roles {
		p, err := broker.PermissionsFor(r, broker.AnyNode)
		if err != nil {
			t.Fatal(err)
		}
		doc.Users = append(doc.Users, natsUser{Role: r, User: broker.UserName(r, broker.AnyNode), Permissions: natsPermissions{
			Publish: subjects(p.PublishAllow, p.PublishDeny), Subscribe: subjects(p.SubscribeAllow, p.SubscribeDeny),
			AllowResponses: responses(p)}})
	}
	lp, err := broker.LeafPermissions(broker.AnyNode)
	if err != nil {
		t.Fatal(err)
	}
	doc.Leaf = natsLeaf{User: broker.LeafUserName(broker.AnyNode), Local: broker.LeafLocal,
		Permissions: natsPermissions{Publish: subjects(lp.PublishAllow, lp.PublishDeny), Subscribe: subjects(lp.SubscribeAllow, lp.SubscribeDeny)}}
	return assetJSON(t, doc)
}

// assetJSON is doc as the chart's generated files hold it: indented, & < > as they are.
func assetJSON(t *testing.T, doc any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// checkAsset compares the chart's generated file name (under the chart) with want, and with
// -update-nats-permissions writes it first; source names what it is made from.
func checkAsset(t *testing.T, name string, want []byte, source string) {
	t.Helper()
	file := filepath.Join(chartDir(t), name)
	if *updateNATSPermissions {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(file)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("helm/corral/%s is not %s's lists (%v): run make chart-assets and commit it", name, source, err)
	}
}

// TestChartNATSPermissionsFile: the chart's permission lists are broker/auth.go's.
// go test ./helm/corral -run TestChartNATSPermissionsFile -update-nats-permissions rewrites them.
func TestChartNATSPermissionsFile(t *testing.T) {
	checkAsset(t, permissionsFile, wantNATSPermissions(t), "broker.PermissionsFor")
}

// serverPermissions is how nats-server holds broker.PermissionsFor(r, AnyNode).
func serverPermissions(t *testing.T, r broker.Role) *server.Permissions {
	t.Helper()
	p, err := broker.PermissionsFor(r, broker.AnyNode)
	if err != nil {
		t.Fatal(err)
	}
	sp := &server.Permissions{Publish: &server.SubjectPermission{Allow: p.PublishAllow, Deny: p.PublishDeny},
		Subscribe: &server.SubjectPermission{Allow: p.SubscribeAllow, Deny: p.SubscribeDeny}}
	if p.AllowResponses {
		sp.Response = &server.ResponsePermission{MaxMsgs: 1, Expires: embedded.Permissions(p).ResponseExpires()}
	}
	return sp
}

func samePermissions(a, b *server.Permissions) error {
	side := func(name string, x, y *server.SubjectPermission) error {
		if x == nil {
			x = &server.SubjectPermission{}
		}
		if y == nil {
			y = &server.SubjectPermission{}
		}
		if !slices.Equal(x.Allow, y.Allow) || !slices.Equal(x.Deny, y.Deny) {
			return fmt.Errorf("%s: allow %q deny %q, want allow %q deny %q", name, x.Allow, x.Deny, y.Allow, y.Deny)
		}
		return nil
	}
	if a == nil || b == nil {
		return fmt.Errorf("permissions %v, want %v", a, b)
	}
	if err := errors.Join(side("publish", a.Publish, b.Publish), side("subscribe", a.Subscribe, b.Subscribe)); err != nil {
		return err
	}
	if (a.Response == nil) != (b.Response == nil) || (a.Response != nil && *a.Response != *b.Response) {
		return fmt.Errorf("responses %+v, want %+v", a.Response, b.Response)
	}
	return nil
}

// natsAuth holds a rendered chart's bundled NATS users: the passwords from the Secret by role.
type natsAuth struct {
	m         manifest
	secret    string
	passwords map[broker.Role]string
}

const natsAuthSecret = fullname + "-nats-auth"

func renderedNATSAuth(t *testing.T, c valuesCase) natsAuth {
	t.Helper()
	m := render(t, c)
	a := natsAuth{m: m, secret: natsAuthSecret, passwords: map[broker.Role]string{}}
	data, _ := dig(m.must(t, "Secret", a.secret), "data").(object)
	if len(data) != len(broker.Roles) {
		t.Errorf("Secret %s has keys %v, want one per role %v", a.secret, keys(data), broker.Roles)
	}
	alnum := regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{31,}$`)
	seen := map[string]bool{}
	for _, r := range broker.Roles {
		pw := string(m.secretData(t, a.secret, string(r)))
		if !alnum.MatchString(pw) || seen[pw] {
			t.Errorf("the %s password %q: want 32 letters and digits, a letter first, none shared", r, pw)
		}
		seen[pw] = true
		a.passwords[r] = pw
	}
	return a
}

func keys(o object) []string {
	var out []string
	for k := range o {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// environ is what the NATS servers' environment holds: their pod name and every role's
// password, from the Secret the StatefulSet names.
func (a natsAuth) environ(t *testing.T) map[string]string {
	t.Helper()
	sts := a.m.must(t, "StatefulSet", fullname+"-nats")
	vars, _ := env(container(t, dig(sts, "spec", "template", "spec").(object), "nats"))
	out := map[string]string{"SERVER_NAME": fullname + "-nats-0"}
	for _, r := range broker.Roles {
		name := "NATS_PASSWORD_" + strings.ToUpper(string(r))
		if want := "secret:" + a.secret + "/" + string(r); vars[name] != want {
			t.Errorf("NATS server env %s is %q, want %s", name, vars[name], want)
		}
		out[name] = a.passwords[r]
	}
	return out
}

// mountedSecret returns the Secret and key behind a file inside a container, following the
// volume's items (a volume with items holds only those keys).
func mountedSecret(t *testing.T, pod, c object, file string) (secret, key string, keys []string) {
	t.Helper()
	dir, base := path.Split(file)
	for _, vm := range list(c["volumeMounts"]) {
		if strings.TrimSuffix(str(vm["mountPath"]), "/")+"/" != dir {
			continue
		}
		for _, v := range list(pod["volumes"]) {
			if v["name"] != vm["name"] {
				continue
			}
			secret = str(dig(v, "secret", "secretName"))
			if secret == "" {
				t.Fatalf("%s is on volume %s, which is not a Secret", file, v["name"])
			}
			items := list(dig(v, "secret", "items"))
			if len(items) == 0 {
				return secret, base, nil // the whole Secret
			}
			for _, it := range items {
				keys = append(keys, str(it["key"]))
				if it["path"] == base {
					key = str(it["key"])
				}
			}
			if key == "" {
				t.Fatalf("volume %s has no item at %s", v["name"], base)
			}
			return secret, key, keys
		}
	}
	t.Fatalf("container %s mounts nothing at %s", c["name"], dir)
	return "", "", nil
}

// podUser checks how a Corral container reaches the bundled NATS: the URL without
// credentials, its role's user, and a password file holding that role's key of the Secret
// and nothing else. It returns the user and the password file's content.
func (a natsAuth) podUser(t *testing.T, workload string, role broker.Role) (user, password string) {
	t.Helper()
	kind, name, _ := strings.Cut(workload, "/")
	pod := dig(a.m.must(t, kind, name), "spec", "template", "spec").(object)
	ctr := container(t, pod, map[broker.Role]string{broker.RoleGateway: "gateway", broker.RoleNode: "node", broker.RoleVision: "vision"}[role])
	vars, _ := env(ctr)
	if u := vars["CORRAL_NATS_URL"]; strings.Contains(u, "@") || u == "" {
		t.Errorf("%s: CORRAL_NATS_URL %q: want the server without credentials", workload, u)
	}
	user = vars["CORRAL_NATS_USER"]
	if user != broker.UserName(role, broker.AnyNode) {
		t.Errorf("%s: CORRAL_NATS_USER %q, want %q", workload, user, broker.UserName(role, broker.AnyNode))
	}
	file := vars["CORRAL_NATS_PASSWORD_FILE"]
	secret, key, items := mountedSecret(t, pod, ctr, file)
	if secret != a.secret || key != string(role) || !slices.Equal(items, []string{string(role)}) {
		t.Errorf("%s: the password file %s is Secret %s key %s (volume items %v), want only %s/%s", workload, file, secret, key, items, a.secret, role)
	}
	return user, string(a.m.secretData(t, secret, key))
}

// TestChartNATSAuthByDefault: the default values turn the bundled NATS's auth on, with a
// user per role whose permissions are broker.PermissionsFor's, as nats-server parses them.
func TestChartNATSAuthByDefault(t *testing.T) {
	a := renderedNATSAuth(t, valuesCase{name: "default"})
	opts := natsConfig(t, a.m, a.environ(t))
	if len(opts.Users) != len(broker.Roles) || opts.Username != "" || opts.Authorization != "" || opts.NoAuthUser != "" {
		t.Fatalf("NATS users %d (single user %q, token %v, no_auth_user %q); want one per role, nothing else",
			len(opts.Users), opts.Username, opts.Authorization != "", opts.NoAuthUser)
	}
	if opts.MaxPayload != embedded.MaxPayload {
		t.Errorf("NATS max_payload %d, want the embedded server's %d: vision requests carry two images", opts.MaxPayload, embedded.MaxPayload)
	}
	// The same users as corral nats-auth --node '*' writes for a standalone server.
	farm, err := broker.FarmUsers([]string{broker.AnyNode}, func(name string) (string, error) {
		return a.passwords[broker.Role(name)], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	conf, err := broker.ServerAuthConfig(farm)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "nats-auth.conf")
	if err := os.WriteFile(file, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	standalone, err := server.ProcessConfigFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range broker.Roles {
		name := broker.UserName(r, broker.AnyNode)
		i := slices.IndexFunc(opts.Users, func(u *server.User) bool { return u.Username == name })
		j := slices.IndexFunc(standalone.Users, func(u *server.User) bool { return u.Username == name })
		if i < 0 || j < 0 {
			t.Errorf("no NATS user %s for role %s in the chart (%v) or corral nats-auth's (%v)", name, r, i >= 0, j >= 0)
			continue
		}
		u := opts.Users[i]
		if u.Password != a.passwords[r] {
			t.Errorf("user %s: the server's password is not the Secret's key %s", name, r)
		}
		if err := samePermissions(u.Permissions, serverPermissions(t, r)); err != nil {
			t.Errorf("user %s: %v (broker.PermissionsFor(%s, AnyNode))", name, err, r)
		}
		if err := samePermissions(u.Permissions, standalone.Users[j].Permissions); err != nil {
			t.Errorf("user %s differs from corral nats-auth's: %v", name, err)
		}
	}

	// Each Corral pod: its role's user, and only its role's password; every CORRAL_NATS_*
	// variable it gets is a flag corral has (corral ignores an unknown CORRAL_ variable).
	for _, w := range []struct {
		workload string
		role     broker.Role
		args     []string
	}{
		{"Deployment/" + fullname + "-gateway", broker.RoleGateway, []string{"gateway"}},
		{"DaemonSet/" + fullname + "-node", broker.RoleNode, []string{"node", "--node-id=usb-host-1", "--adb=off"}},
	} {
		_, pw := a.podUser(t, w.workload, w.role)
		kind, name, _ := strings.Cut(w.workload, "/")
		ctr := list(dig(a.m.must(t, kind, name), "spec", "template", "spec", "containers"))[0]
		local := filepath.Join(t.TempDir(), "password")
		if err := os.WriteFile(local, []byte(pw), 0o600); err != nil {
			t.Fatal(err)
		}
		vars, _ := env(ctr)
		args := slices.Clone(w.args)
		for k, v := range vars {
			if flag, ok := strings.CutPrefix(k, "CORRAL_NATS_"); ok {
				args = append(args, "--nats-"+strings.ReplaceAll(strings.ToLower(flag), "_", "-")+"="+v)
			}
		}
		checkConfig(t, ctr, args, map[string]string{vars["CORRAL_NATS_PASSWORD_FILE"]: local})
	}
	// The vision workers: their role's user and password (corral vision needs a corral built with
	// vision, so its flags are not checked here).
	a.podUser(t, "Deployment/"+fullname+"-vision", broker.RoleVision)

	// The Secret is made once: the template reads the existing one back (lookup) before making
	// passwords, and keeps it on uninstall.
	s := a.m.must(t, "Secret", a.secret)
	if dig(s, "metadata", "annotations", "helm.sh/resource-policy") != "keep" {
		t.Errorf("Secret %s is not kept on uninstall", a.secret)
	}
	tpl, err := os.ReadFile(filepath.Join(chartDir(t), "templates", "nats.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`lookup "v1" "Secret" \.Release\.Namespace \$secret`).Match(tpl) {
		t.Error("templates/nats.yaml does not look up the existing NATS auth Secret: an upgrade would change every password")
	}
}

// TestChartNATSPasswordsOnlyInTheSecret: no password, plain or base64, in any rendered object
// but its Secret: not in a ConfigMap, an argument, a command, an environment value, an annotation.
func TestChartNATSPasswordsOnlyInTheSecret(t *testing.T) {
	for _, c := range cases(t) {
		t.Run(c.name, func(t *testing.T) {
			m := render(t, c)
			s := m.find("Secret", natsAuthSecret)
			if s == nil {
				return
			}
			var secrets []string
			for _, v := range dig(s, "data").(object) {
				b, _ := base64.StdEncoding.DecodeString(str(v))
				secrets = append(secrets, string(b), str(v))
			}
			for _, o := range m {
				if o["kind"] == "Secret" && dig(o, "metadata", "name") == natsAuthSecret {
					continue
				}
				b, _ := json.Marshal(o)
				for _, pw := range secrets {
					if bytes.Contains(b, []byte(pw)) {
						t.Errorf("%s %v holds a NATS password", o["kind"], dig(o, "metadata", "name"))
					}
				}
			}
			for name, pod := range m.workloads() {
				for _, ctr := range list(pod["containers"]) {
					for _, e := range list(ctr["env"]) {
						if strings.Contains(str(e["name"]), "PASSWORD") && !strings.HasSuffix(str(e["name"]), "_FILE") && dig(e, "valueFrom", "secretKeyRef") == nil {
							t.Errorf("%s container %s: %s is not from a Secret", name, ctr["name"], e["name"])
						}
					}
				}
			}
		})
	}
}

// TestChartNATSAuthOff: only nats.bundled.auth.enabled=false turns it off.
func TestChartNATSAuthOff(t *testing.T) {
	m := render(t, valuesCase{name: "nats-auth-off", sets: []string{"nats.bundled.auth.enabled=false"}})
	if m.find("Secret", natsAuthSecret) != nil {
		t.Error("a NATS auth Secret without auth")
	}
	if opts := natsConfig(t, m, map[string]string{"SERVER_NAME": "corral-nats-0"}); len(opts.Users) != 0 {
		t.Errorf("%d NATS users with auth off", len(opts.Users))
	}
	for name, pod := range m.workloads() {
		for _, ctr := range list(pod["containers"]) {
			if vars, _ := env(ctr); vars["CORRAL_NATS_USER"] != "" || vars["NATS_PASSWORD_ADMIN"] != "" {
				t.Errorf("%s container %s gets NATS credentials with auth off", name, ctr["name"])
			}
		}
	}
}

// startNATS runs nats-server in the test with the chart's configuration (one server, on a
// free port, JetStream in a temporary directory).
func startNATS(t *testing.T, a natsAuth) string {
	t.Helper()
	opts := natsConfig(t, a.m, a.environ(t))
	opts.Host, opts.Port, opts.HTTPPort, opts.HTTPHost = "127.0.0.1", -1, 0, ""
	opts.Cluster, opts.Routes, opts.RoutesStr = server.ClusterOpts{}, nil, ""
	opts.StoreDir, opts.PidFile, opts.NoSigs, opts.NoLog = t.TempDir(), "", true, true
	s, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	t.Cleanup(s.Shutdown)
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server with the chart's configuration did not start")
	}
	return s.ClientURL()
}

// client is a NATS connection that collects its permission violations.
type client struct {
	*nats.Conn
	name string
	errs chan error
}

func connect(t *testing.T, url, user, password string) *client {
	t.Helper()
	dir := t.TempDir()
	pwFile := filepath.Join(dir, "password")
	if err := os.WriteFile(pwFile, []byte(password), 0o600); err != nil {
		t.Fatal(err)
	}
	// As corral does: --nats-user and --nats-password-file (the inbox prefix follows the user).
	nc, err := broker.Connect(broker.ConnectOptions{URL: url, Name: user, User: user, PasswordFile: pwFile}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("connect as %s: %v", user, err)
	}
	c := &client{Conn: nc, name: user, errs: make(chan error, 16)}
	nc.SetErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { c.errs <- err })
	t.Cleanup(nc.Close)
	return c
}

// refused waits for the server to refuse what the client just did on subject.
func (c *client) refused(t *testing.T, what, subject string) {
	t.Helper()
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(5 * time.Second)
	for {
		select {
		case err := <-c.errs:
			if strings.Contains(err.Error(), "Permissions Violation for "+what) && strings.Contains(err.Error(), `"`+subject+`"`) {
				return
			}
		case <-timeout:
			t.Errorf("%s was not refused %s on %s", c.name, strings.ToLower(what), subject)
			return
		}
	}
}

// TestChartNATSAuthEnforced runs nats-server with the rendered configuration and the Secret's
// passwords, connects as the pods and operators do, and checks that each role can do its part
// and not another's.
func TestChartNATSAuthEnforced(t *testing.T) {
	a := renderedNATSAuth(t, valuesCase{name: "default"})
	url := startNATS(t, a)

	// No credentials, or a wrong password: refused.
	if nc, err := nats.Connect(url); err == nil {
		nc.Close()
		t.Error("a client without credentials is let in")
	}
	if nc, err := nats.Connect(url, nats.UserInfo("admin", a.passwords[broker.RoleNode])); err == nil {
		nc.Close()
		t.Error("admin is let in with the node's password")
	}

	gwUser, gwPass := a.podUser(t, "Deployment/"+fullname+"-gateway", broker.RoleGateway)
	nodeUser, nodePass := a.podUser(t, "DaemonSet/"+fullname+"-node", broker.RoleNode)
	gw := connect(t, url, gwUser, gwPass)
	node := connect(t, url, nodeUser, nodePass)
	op := connect(t, url, "operator", a.passwords[broker.RoleOperator])
	admin := connect(t, url, "admin", a.passwords[broker.RoleAdmin])

	// A node (any node id: the user is shared) serves its endpoints; gateways and admins call
	// them, an operator only the read-only leases endpoint.
	nodeSubject := func(id, endpoint string) string { return fmt.Sprintf(broker.NodeGroupT, id) + "." + endpoint }
	for _, id := range []string{"usb-host-1", "usb-host-2"} {
		sub, err := node.Subscribe(fmt.Sprintf(broker.NodeGroupT, id)+".>", func(m *nats.Msg) { _ = m.Respond([]byte("ok " + m.Subject)) })
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = sub.Unsubscribe() })
	}
	if err := node.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, call := range []struct {
		c       *client
		subject string
	}{
		{gw, nodeSubject("usb-host-1", broker.EndpointTask)},
		{gw, nodeSubject("usb-host-2", broker.EndpointAcquire)},
		{admin, nodeSubject("usb-host-1", broker.EndpointDrain)},
		{op, nodeSubject("usb-host-2", broker.EndpointLeases)},
	} {
		msg, err := call.c.Request(call.subject, nil, 5*time.Second)
		if err != nil || string(msg.Data) != "ok "+call.subject {
			t.Errorf("%s → %s: %v %v", call.c.name, call.subject, msgData(msg), err)
		}
	}

	// What each role may not do.
	pub := func(c *client, subject string) {
		t.Helper()
		if err := c.Publish(subject, []byte("x")); err != nil {
			t.Fatal(err)
		}
		c.refused(t, "Publish", subject)
	}
	sub := func(c *client, subject string) {
		t.Helper()
		s, err := c.SubscribeSync(subject)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = s.Unsubscribe() }()
		c.refused(t, "Subscription", subject)
	}
	pub(op, nodeSubject("usb-host-1", broker.EndpointDrain))
	pub(op, nodeSubject("usb-host-1", broker.EndpointTask))
	pub(node, nodeSubject("usb-host-2", broker.EndpointTask)) // a node cannot call another
	pub(node, "$KV."+broker.SessionBucket+".s1")
	sub(node, broker.InboxPrefix("gateway")+".>") // the lease handles gateways are given
	sub(node, broker.InboxPrefix("admin")+".>")
	sub(op, broker.InboxPrefix("gateway")+".>")
	sub(gw, nodeSubject("usb-host-1", broker.EndpointTask)) // a gateway cannot pose as a node
	sub(admin, nodeSubject("usb-host-1", broker.EndpointDrain))
	sub(op, "$KV."+broker.LeaseBucket+".>")

	// The admin's credentials as docs/helm.md gets them to natscli: the Secret's admin key,
	// `nats context add` with the password from the environment and the admin's inbox prefix.
	natsCLI := tool(t, "nats")
	home := t.TempDir()
	run := func(environ []string, args ...string) ([]byte, error) {
		cmd := exec.CommandContext(t.Context(), natsCLI, args...)
		cmd.Env = append([]string{"HOME=" + home, "XDG_CONFIG_HOME=" + home + "/.config", "PATH=/usr/bin:/bin"}, environ...)
		return cmd.CombinedOutput()
	}
	if out, err := run([]string{"NATS_PASSWORD=" + a.passwords[broker.RoleAdmin]}, "context", "add", "corral-admin",
		"--server", url, "--user", "admin", "--inbox-prefix", broker.InboxPrefix("admin")); err != nil {
		t.Fatalf("nats context add: %v\n%s", err, out)
	}
	if out, err := run(nil, "--context", "corral-admin", "account", "info"); err != nil || !strings.Contains(string(out), "JetStream") {
		t.Errorf("nats --context corral-admin account info: %v\n%s", err, out)
	}
	// The same context file serves corral (--nats-context), as docs/helm.md says.
	ctxFile := filepath.Join(home, ".config", "nats", "context", "corral-admin.json")
	if c, err := broker.ReadNATSContext(ctxFile); err != nil || c.User != "admin" || c.InboxPrefix != broker.InboxPrefix("admin") {
		t.Errorf("natscli's context %s for corral: %+v %v", ctxFile, c, err)
	} else if nc, err := broker.Connect(broker.ConnectOptions{Context: ctxFile}, slog.New(slog.DiscardHandler)); err != nil {
		t.Errorf("corral with --nats-context %s: %v", ctxFile, err)
	} else {
		if msg, err := nc.Request(nodeSubject("usb-host-1", broker.EndpointDrain), nil, 5*time.Second); err != nil {
			t.Errorf("corral as admin through natscli's context: drain request: %v", err)
		} else if string(msg.Data) != "ok "+nodeSubject("usb-host-1", broker.EndpointDrain) {
			t.Errorf("drain answer %q", msg.Data)
		}
		nc.Close()
	}

	// The node's micro service (its $SRV subjects are the node user's), listed by the admin.
	svc, err := micro.AddService(node.Conn, micro.Config{Name: broker.NodeService, Version: "0.0.0", Description: "node usb-host-1"})
	if err != nil {
		t.Fatalf("the node user cannot serve %s: %v", broker.NodeService, err)
	}
	t.Cleanup(func() { _ = svc.Stop() })
	if out, err := run(nil, "--context", "corral-admin", "micro", "ls"); err != nil || !strings.Contains(string(out), "node usb-host-1") {
		t.Errorf("nats --context corral-admin micro ls: %v\n%s", err, out)
	}
}

func msgData(m *nats.Msg) string {
	if m == nil {
		return "<none>"
	}
	return string(m.Data)
}

// TestChartNATSExternalUsers: an external NATS with the users of corral nats-auth: each pod
// gets its role's user and only its role's password from the named Secret; a credentials
// file per role; and not both.
func TestChartNATSExternalUsers(t *testing.T) {
	m := render(t, example(t, "external-nats-users"))
	if m.find("Secret", natsAuthSecret) != nil || len(m.all("StatefulSet")) != 0 {
		t.Error("the bundled NATS or its Secret with an external NATS")
	}
	for _, w := range []struct {
		workload, container, user, key string
	}{{"Deployment/" + fullname + "-gateway", "gateway", "gateway", "gateway"}, {"DaemonSet/" + fullname + "-node", "node", "node", "node"}} {
		kind, name, _ := strings.Cut(w.workload, "/")
		pod := dig(m.must(t, kind, name), "spec", "template", "spec").(object)
		ctr := container(t, pod, w.container)
		vars, _ := env(ctr)
		secret, key, items := mountedSecret(t, pod, ctr, vars["CORRAL_NATS_PASSWORD_FILE"])
		if vars["CORRAL_NATS_USER"] != w.user || secret != "corral-nats-users" || key != w.key || len(items) != 1 || vars["CORRAL_NATS_CREDS"] != "" {
			t.Errorf("%s: user %q, password from %s/%s (items %v), creds %q", w.workload, vars["CORRAL_NATS_USER"], secret, key, items, vars["CORRAL_NATS_CREDS"])
		}
		if !strings.HasPrefix(vars["CORRAL_NATS_URL"], "nats://nats.nats.svc:4222") {
			t.Errorf("%s: CORRAL_NATS_URL %q", w.workload, vars["CORRAL_NATS_URL"])
		}
	}

	m = render(t, valuesCase{name: "external-creds", files: example(t, "external-nats").files,
		sets: []string{"nats.external.credentials.nodeKey=node.creds"}})
	for workload, want := range map[string]string{"Deployment/" + fullname + "-gateway": "nats.creds", "DaemonSet/" + fullname + "-node": "node.creds"} {
		kind, name, _ := strings.Cut(workload, "/")
		pod := dig(m.must(t, kind, name), "spec", "template", "spec").(object)
		ctr := container(t, pod, map[bool]string{true: "node", false: "gateway"}[kind == "DaemonSet"])
		vars, _ := env(ctr)
		if secret, key, items := mountedSecret(t, pod, ctr, vars["CORRAL_NATS_CREDS"]); secret != "corral-nats-creds" || key != want || len(items) != 1 {
			t.Errorf("%s: credentials %s/%s (items %v), want only corral-nats-creds/%s", workload, secret, key, items, want)
		}
	}

	_, err := helm(t, append([]string{"template", release, chartDir(t)}, valuesCase{files: example(t, "external-nats").files,
		sets: []string{"nats.external.auth.existingSecret=corral-nats-users"}}.args()...)...)
	if err == nil || !strings.Contains(err.Error(), "either passwords or a credentials file") {
		t.Errorf("an external NATS with passwords and a credentials file: %v", err)
	}
}

// networkPolicies returns the rendered NetworkPolicies by the component they protect.
func networkPolicies(t *testing.T, m manifest) map[string]object {
	t.Helper()
	out := map[string]object{}
	for _, np := range m.all("NetworkPolicy") {
		out[str(dig(np, "spec", "podSelector", "matchLabels", "app.kubernetes.io/component"))] = np
	}
	return out
}

// ingressTo returns the rules of a NetworkPolicy that admit traffic to a named port.
func ingressTo(np object, port string) []object {
	var out []object
	for _, r := range list(dig(np, "spec", "ingress")) {
		for _, p := range list(r["ports"]) {
			if p["port"] == port {
				out = append(out, r)
			}
		}
	}
	return out
}

// selects says whether a NetworkPolicyPeer's podSelector (without a namespaceSelector: the
// release's namespace) picks pods with these labels.
func selects(peer object, labels object) bool {
	if peer["namespaceSelector"] != nil || peer["ipBlock"] != nil {
		return false
	}
	ps, _ := peer["podSelector"].(object)
	if ps == nil {
		return false
	}
	for k, v := range dig(ps, "matchLabels").(object) {
		if labels[k] != v {
			return false
		}
	}
	for _, e := range list(ps["matchExpressions"]) {
		if e["operator"] != "In" || !slices.Contains(e["values"].([]any), labels[str(e["key"])]) {
			return false
		}
	}
	return true
}

// TestChartNetworkPolicies: by default NATS's client port admits Corral's own pods only, its
// route port only NATS, the gateways' HTTP port anyone, metrics the monitoring namespace; the
// values extend or turn them off; every object passes kubeconform against the schemas.
func TestChartNetworkPolicies(t *testing.T) {
	m := render(t, valuesCase{name: "default"})
	nps := networkPolicies(t, m)
	if len(nps) != 4 || nps["nats"] == nil || nps["gateway"] == nil || nps["node"] == nil || nps["vision"] == nil {
		t.Fatalf("NetworkPolicies %v, want one each for nats, gateway, node and vision", m.names())
	}
	labels := func(kind, name string) object {
		return dig(m.must(t, kind, name), "spec", "template", "metadata", "labels").(object)
	}
	gwPod, nodePod, natsPod := labels("Deployment", fullname+"-gateway"), labels("DaemonSet", fullname+"-node"), labels("StatefulSet", fullname+"-nats")
	visionPod := labels("Deployment", fullname+"-vision")
	for component, pod := range map[string]object{"nats": natsPod, "gateway": gwPod, "node": nodePod, "vision": visionPod} {
		np := nps[component]
		if !subset(dig(np, "spec", "podSelector", "matchLabels"), pod) || jsonString(dig(np, "spec", "policyTypes")) != `["Ingress"]` {
			t.Errorf("NetworkPolicy %s: podSelector %v, policyTypes %v", component, dig(np, "spec", "podSelector"), dig(np, "spec", "policyTypes"))
		}
	}
	client := ingressTo(nps["nats"], "client")
	if len(client) != 1 {
		t.Fatalf("NATS client port rules: %v", client)
	}
	from := list(client[0]["from"])
	vision := object{}
	for k, v := range gwPod {
		vision[k] = v
	}
	vision["app.kubernetes.io/component"] = "vision"
	other := object{"app.kubernetes.io/name": "corral", "app.kubernetes.io/instance": "other", "app.kubernetes.io/component": "gateway"}
	anyPeer := func(labels object) bool {
		return slices.ContainsFunc(from, func(p object) bool { return selects(p, labels) })
	}
	if len(from) == 0 || !anyPeer(gwPod) || !anyPeer(nodePod) || !anyPeer(vision) || anyPeer(other) || anyPeer(object{"app": "x"}) {
		t.Errorf("NATS client port admits %v: want Corral's gateways, nodes and vision workers of this release only", from)
	}
	for _, p := range from {
		if p["namespaceSelector"] != nil || p["ipBlock"] != nil {
			t.Errorf("NATS client port admits %v by default", p)
		}
	}
	if r := ingressTo(nps["nats"], "cluster"); len(r) != 1 || len(list(r[0]["from"])) != 1 || !selects(list(r[0]["from"])[0], natsPod) || selects(list(r[0]["from"])[0], gwPod) {
		t.Errorf("NATS route port rules %v: want the NATS servers only", r)
	}
	monitoring := `[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"monitoring"}}}]`
	if r := ingressTo(nps["nats"], "monitor"); len(r) != 1 || jsonString(r[0]["from"]) != monitoring {
		t.Errorf("NATS monitor port rules %v", r)
	}
	if r := ingressTo(nps["gateway"], "http"); len(r) != 1 || r[0]["from"] != nil {
		t.Errorf("gateway HTTP rules %v: want anyone", r)
	}
	for _, c := range []string{"node", "vision"} {
		if r := ingressTo(nps[c], "metrics"); len(r) != 1 || jsonString(r[0]["from"]) != monitoring || len(list(dig(nps[c], "spec", "ingress"))) != 1 {
			t.Errorf("%s rules %v: want the metrics port from the monitoring namespace only", c, dig(nps[c], "spec", "ingress"))
		}
	}
	if !anyPeer(visionPod) {
		t.Errorf("NATS client port admits %v: not the vision Deployment's pods", from)
	}

	// Extended by values: operators' natscli pods, the gateways behind an ingress controller.
	ops := `{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"ops"}},"podSelector":{"matchLabels":{"app":"natscli"}}}`
	ingress := `{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"ingress-nginx"}}}`
	values := filepath.Join(t.TempDir(), "np.yaml")
	if err := os.WriteFile(values, []byte("networkPolicy:\n  nats:\n    from: ["+ops+"]\n  gateway:\n    from: ["+ingress+"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	extended := valuesCase{name: "np-extended", files: []string{values}}
	nps = networkPolicies(t, render(t, extended))
	if f := jsonString(ingressTo(nps["nats"], "client")[0]["from"]); !strings.HasSuffix(f, ","+ops+"]") {
		t.Errorf("nats.from not added to the NATS client port: %s", f)
	}
	if f := jsonString(ingressTo(nps["gateway"], "http")[0]["from"]); f != "["+ingress+","+strings.Trim(monitoring, "[]")+"]" {
		t.Errorf("gateway HTTP port from %s: want gateway.from and metrics.from", f)
	}
	validate(t, extended)
	validate(t, valuesCase{name: "default"})

	// Off only when the values say so.
	if n := len(render(t, valuesCase{name: "np-off", sets: []string{"networkPolicy.enabled=false"}}).all("NetworkPolicy")); n != 0 {
		t.Errorf("%d NetworkPolicies with networkPolicy.enabled=false", n)
	}
	ext := render(t, example(t, "external-nats"))
	if nps := networkPolicies(t, ext); nps["nats"] != nil || nps["gateway"] == nil {
		t.Errorf("with an external NATS: NetworkPolicies %v", ext.names())
	}
}

// validate runs helm lint --strict and kubeconform -strict on what the values render.
func validate(t *testing.T, c valuesCase) {
	t.Helper()
	kubeconform := tool(t, "kubeconform")
	locations, version := schemas(t)
	if out, err := helm(t, append([]string{"lint", "--strict", chartDir(t), "--namespace", namespace}, c.args()...)...); err != nil {
		t.Fatalf("helm lint %s: %v\n%s", c.name, err, out)
	}
	out, err := helm(t, append([]string{"template", release, chartDir(t), "--namespace", namespace}, c.args()...)...)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-strict", "-summary", "-kubernetes-version", version}
	for _, l := range locations {
		args = append(args, "-schema-location", l)
	}
	cmd := exec.CommandContext(t.Context(), kubeconform, append(args, "-")...)
	cmd.Stdin = bytes.NewReader(out)
	if res, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(res), "Invalid: 0, Errors: 0, Skipped: 0") {
		t.Errorf("kubeconform -strict %s: %v\n%s", c.name, err, res)
	}
}

// fakeKubernetes serves the Kubernetes API calls helm's lookup makes (discovery of v1, a GET of
// one Secret) from the given Secrets by name, and logs every request.
func fakeKubernetes(t *testing.T, secrets map[string]object) (kubeconfig string, requests func() []string) {
	t.Helper()
	var mu sync.Mutex
	var log []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		log = append(log, r.Method+" "+r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		send := func(v any) { _ = json.NewEncoder(w).Encode(v) }
		switch p := r.URL.Path; {
		case p == "/version":
			send(map[string]string{"major": "1", "minor": "33", "gitVersion": "v1.33.0"})
		case p == "/api":
			send(map[string]any{"kind": "APIVersions", "versions": []string{"v1"}})
		case p == "/apis":
			send(map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": []any{}})
		case p == "/api/v1":
			send(map[string]any{"kind": "APIResourceList", "groupVersion": "v1", "resources": []any{
				map[string]any{"name": "secrets", "singularName": "secret", "namespaced": true, "kind": "Secret", "verbs": []string{"get", "list"}}}})
		case strings.HasPrefix(p, "/api/v1/namespaces/"+namespace+"/secrets/") && secrets[path.Base(p)] != nil:
			send(secrets[path.Base(p)])
		default:
			w.WriteHeader(http.StatusNotFound)
			send(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404})
		}
	}))
	t.Cleanup(srv.Close)
	kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	conf := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: %s\ncontexts:\n- name: fake\n  context:\n    cluster: fake\n    user: fake\n    namespace: %s\ncurrent-context: fake\nusers:\n- name: fake\n  user:\n    token: fake\n", srv.URL, namespace)
	if err := os.WriteFile(kubeconfig, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return kubeconfig, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(log)
	}
}

// TestChartNATSPasswordsKeptOnUpgrade renders the chart as helm does against a cluster (a fake
// API server holding the Secret of a first install): every password is the one already there,
// so an upgrade changes none; a role missing from it gets a new one.
func TestChartNATSPasswordsKeptOnUpgrade(t *testing.T) {
	first := renderedNATSAuth(t, valuesCase{name: "default"})
	installed := first.m.must(t, "Secret", natsAuthSecret)
	delete(dig(installed, "data").(object), "operator") // as if made before the operator role
	kubeconfig, requests := fakeKubernetes(t, map[string]object{natsAuthSecret: installed})

	out, err := helmWithKubeconfig(t, kubeconfig, "template", release, chartDir(t), "--namespace", namespace, "--dry-run=server")
	if err != nil {
		t.Fatalf("helm template --dry-run=server: %v", err)
	}
	m := parse(t, out)
	for _, r := range broker.Roles {
		got := string(m.secretData(t, natsAuthSecret, string(r)))
		if keep := r != broker.RoleOperator; keep != (got == first.passwords[r]) || len(got) < 32 {
			t.Errorf("role %s: password %q after the upgrade, %q before (kept: %v)", r, got, first.passwords[r], keep)
		}
	}
	if !slices.Contains(requests(), "GET /api/v1/namespaces/"+namespace+"/secrets/"+natsAuthSecret) {
		t.Errorf("helm did not read the Secret back: %v", requests())
	}
}

// helmWithKubeconfig runs helm against the cluster of a kubeconfig.
func helmWithKubeconfig(t *testing.T, kubeconfig string, args ...string) ([]byte, error) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.CommandContext(t.Context(), tool(t, "helm"), args...)
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+home+"/cache", "HELM_CONFIG_HOME="+home+"/config",
		"HELM_DATA_HOME="+home+"/data", "KUBECONFIG="+kubeconfig)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, errors.New(strings.TrimSpace(stderr.String()) + " (" + err.Error() + ")")
	}
	return out, nil
}

// secretKeysUsed lists the keys of the Secret name that the rendered pods read, through
// secretKeyRef environment variables or Secret volume items ("*" for a whole Secret mounted).
func secretKeysUsed(m manifest, name string) []string {
	seen := map[string]bool{}
	for _, pod := range m.workloads() {
		for _, ctr := range list(pod["containers"]) {
			for _, e := range list(ctr["env"]) {
				if ref := dig(e, "valueFrom", "secretKeyRef"); ref != nil && dig(ref, "name") == name {
					seen[str(dig(ref, "key"))] = true
				}
			}
		}
		for _, v := range list(pod["volumes"]) {
			if dig(v, "secret", "secretName") != name {
				continue
			}
			items := list(dig(v, "secret", "items"))
			if len(items) == 0 {
				seen["*"] = true
			}
			for _, it := range items {
				seen[str(it["key"])] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// TestChartNATSExistingSecretKeys: a Secret of one's own holds the keys docs/helm.md names,
// vision's only with the vision workers: the pods and the bundled NATS read no other key (a
// key they read and the Secret lacks keeps the pods from starting), and nats-server takes the
// configuration with only those passwords in its environment.
func TestChartNATSExistingSecretKeys(t *testing.T) {
	for _, c := range []struct {
		name string
		sets []string
		want []string
	}{
		{"bundled", []string{"nats.bundled.auth.existingSecret=mynats"},
			[]string{"admin", "gateway", "node", "operator", "vision"}},
		{"bundled-no-vision", []string{"nats.bundled.auth.existingSecret=mynats", "vision.enabled=false"},
			[]string{"admin", "gateway", "node", "operator"}},
		{"external", []string{"nats.bundled.enabled=false", "nats.external.url=nats://nats.nats.svc:4222",
			"nats.external.auth.existingSecret=mynats"}, []string{"gateway", "node", "vision"}},
		{"external-no-vision", []string{"nats.bundled.enabled=false", "nats.external.url=nats://nats.nats.svc:4222",
			"nats.external.auth.existingSecret=mynats", "vision.enabled=false"}, []string{"gateway", "node"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			vc := valuesCase{name: c.name, sets: c.sets}
			m := render(t, vc)
			if m.find("Secret", "mynats") != nil || m.find("Secret", natsAuthSecret) != nil {
				t.Errorf("the chart makes a NATS auth Secret besides the one named: %v", m.names())
			}
			if got := secretKeysUsed(m, "mynats"); !slices.Equal(got, c.want) {
				t.Errorf("the pods read the keys %v of Secret mynats, want %v", got, c.want)
			}
			if m.find("StatefulSet", fullname+"-nats") != nil {
				environ := map[string]string{"SERVER_NAME": fullname + "-nats-0"}
				for _, r := range broker.Roles {
					t.Setenv("NATS_PASSWORD_"+strings.ToUpper(string(r)), "")
					os.Unsetenv("NATS_PASSWORD_" + strings.ToUpper(string(r)))
				}
				for _, k := range c.want {
					environ["NATS_PASSWORD_"+strings.ToUpper(k)] = "pw" + k
				}
				if opts := natsConfig(t, m, environ); len(opts.Users) != len(c.want) {
					t.Errorf("NATS users %d, want one per key %v", len(opts.Users), c.want)
				}
			}
			validate(t, vc)
		})
	}
}
