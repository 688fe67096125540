package console

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// assets are the console's templates, style and scripts.
//
//go:embed assets
var assets embed.FS

// pages are the parsed templates.
type pages struct {
	t *template.Template
}

var funcs = template.FuncMap{
	// path escapes a serial for a URL path ("192.168.1.5:5555" stays readable).
	"path": url.PathEscape,
	// clock shows a time of day; "" for none.
	"clock": clock,
	// stamp is a time for scripts (RFC 3339); "" for none.
	"stamp": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(time.RFC3339Nano)
	},
	"ms": func(ms int64) string {
		d := time.Duration(ms) * time.Millisecond
		if d < time.Second {
			return fmt.Sprintf("%d ms", ms)
		}
		return d.Round(100 * time.Millisecond).String()
	},
	// took is how long a task ran: "—" if it never started.
	"took": func(start, end time.Time) string {
		switch d := end.Sub(start); {
		case start.IsZero() || d < 0:
			return "—"
		case d < time.Millisecond:
			return "<1 ms"
		case d < time.Second:
			return fmt.Sprintf("%d ms", d.Milliseconds())
		default:
			return d.Round(100 * time.Millisecond).String()
		}
	},
	"join": strings.Join,
	// selected marks the option of a filter that is chosen.
	"selected": func(a, b string) bool { return a == b },
	// choices are a filter's options: the values the farm has, and the chosen one even when no
	// device has it now (a bookmarked node that is down), so that the filter holds.
	"choices": func(values []string, chosen string) []string {
		if chosen == "" || slices.Contains(values, chosen) {
			return values
		}
		return append(slices.Clone(values), chosen)
	},
}

// clock shows a time of day in the gateway's zone (the pages' scripts show the browser's);
// "" for none.
func clock(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Local().Format("15:04:05")
}

func mustPages() *pages {
	t := template.Must(template.New("console").Funcs(funcs).ParseFS(assets, "assets/*.html"))
	return &pages{t: t}
}

// render executes a template into a buffer first, so that a failure is a clean 500.
func (p *pages) render(w http.ResponseWriter, name string, status int, data any) {
	var buf bytes.Buffer
	if err := p.t.ExecuteTemplate(&buf, name, data); err != nil {
		http.Error(w, "console template "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// staticFiles serves the style and scripts. Revalidated on every load: they are small, and a
// gateway upgrade must not leave old scripts running against new data.
func staticFiles() http.Handler {
	sub, _ := fs.Sub(assets, "assets")
	files := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, ".css") && !strings.HasSuffix(r.URL.Path, ".js") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}

// frame is what every page template gets: the viewer and the page's own data.
type frame struct {
	Title  string
	Viewer Viewer
	Auth   bool   // the console asks for tokens: show who is logged in, and a logout button
	CSRF   string // the page's token for its POSTs (csrf.go)
	Page   any
	// Empty is a device with no data, for the card template scripts clone.
	Empty deviceView
}

// frameOf starts the frame of a page for r.
func (c *Console) frameOf(w http.ResponseWriter, r *http.Request, title string, page any) frame {
	return frame{Title: title, Viewer: viewerFrom(r.Context()), Auth: c.cfg.Authenticate != nil, CSRF: c.pageCSRF(w, r), Page: page}
}

// serverCards is how many cards the grid's page carries: enough for the first screens, while
// the page's script renders the rest from its first data. A farm of 10,000 devices made an 8 MB
// page that a browser took seconds to parse.
const serverCards = 200

// gridPageData is the grid page's: the grid, and the cards the server renders of it.
type gridPageData struct {
	gridData
	Cards []deviceView
}

// gridPage serves the grid: /?platform=&tag=&node=&state=.
func (c *Console) gridPage(w http.ResponseWriter, r *http.Request) {
	g := c.grid(r.Context(), filterOf(r.URL.Query()))
	page := gridPageData{gridData: g, Cards: g.Devices[:min(len(g.Devices), serverCards)]}
	c.pages.render(w, "grid", http.StatusOK, c.frameOf(w, r, "Devices", page))
}

// devicePageData is the device page's: the device, its timeline, and the actions the viewer
// may take on it.
type devicePageData struct {
	deviceData
	Controls controls
}

// devicePage serves one device: /devices/{serial}.
func (c *Console) devicePage(w http.ResponseWriter, r *http.Request) {
	d, ok := c.visible(r.Context(), r.PathValue("serial"))
	if !ok {
		c.pages.render(w, "notfound", http.StatusNotFound, c.frameOf(w, r, "No such device", r.PathValue("serial")))
		return
	}
	data := devicePageData{deviceData: c.device(r.Context(), d, true), Controls: c.controls(viewerFrom(r.Context()), d.Platform)}
	data.Held = c.holds(r, data.Device.Serial)
	c.pages.render(w, "device", http.StatusOK, c.frameOf(w, r, d.Serial, data))
}

// loginData is the login form's.
type loginData struct {
	Next    string
	Message string
}

// loginForm asks for a token; next is where to go after.
func (c *Console) loginForm(w http.ResponseWriter, r *http.Request, next, msg string, status int) {
	w.Header().Set("Cache-Control", "no-store")
	c.pages.render(w, "login", status, frame{Title: "Log in", CSRF: c.pageCSRF(w, r), Page: loginData{Next: localPath(next), Message: msg}})
}
