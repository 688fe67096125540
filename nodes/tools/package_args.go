package tools

// PackageArgs are the arguments of the tools that act on one installed app: app_uninstall and
// app_clear (HttpRunner seed).
type PackageArgs struct {
	PackageName string `json:"packageName" arg:"required,maxLength=255" pattern:"^[A-Za-z0-9._-]+$" desc:"Package or bundle id, e.g. com.android.settings" help:"an Android package name or iOS bundle id, e.g. com.android.settings (list_packages lists them)" hint:"package names and bundle ids are letters, digits, '.', '_' and '-' (list_packages lists them)"`
	Behaviour
}

// AppArgs are the arguments of app_launch and app_terminate (HttpRunner seed): an app, or on a
// browser device (platform web) a page's http(s) URL.
type AppArgs struct {
	PackageName string `json:"packageName" arg:"required,maxLength=2048" pattern:"^([A-Za-z0-9._-]{1,255}|https?://[^\\s]+)$" desc:"Package or bundle id, e.g. com.android.settings; on a browser device a URL" help:"an Android package name or iOS bundle id, e.g. com.android.settings (list_packages lists them), or on a browser device an http(s) URL" hint:"package names and bundle ids are letters, digits, '.', '_' and '-' (list_packages lists them); browser devices take http:// and https:// URLs"`
	Behaviour
}

// PackageResult is the structured result of app_uninstall and app_clear (HttpRunner seed).
type PackageResult struct {
	Message     string `json:"message" jsonschema:"What was done"`
	PackageName string `json:"packageName" jsonschema:"Package name of the app acted on"`
	Hint        string `json:"hint"`
}
