package test

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/tools"
)

// TestReadmeAppInstallNamesItsArgument: README's tools table names app_install's one argument as
// the tool takes it (appUrl, whose value is a URL or a path on the node), not an argument it
// does not have.
func TestReadmeAppInstallNamesItsArgument(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for line := range strings.Lines(string(readme)) {
		if strings.HasPrefix(line, "| apps |") {
			row = line
		}
	}
	if row == "" {
		t.Fatal("README's tools table has no apps row")
	}
	_, entry, ok := strings.Cut(row, "`app_install` (")
	if !ok {
		t.Fatalf("README's apps row does not describe app_install's arguments: %s", row)
	}
	entry, _, _ = strings.Cut(entry, "), `") // up to the next tool
	args := reflect.TypeFor[tools.AppInstallArgs]()
	for i := range args.NumField() {
		f := args.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || f.Anonymous {
			continue
		}
		if !strings.Contains(entry, "`"+name+"`") {
			t.Errorf("README's app_install entry %q does not name its argument %s", entry, name)
		}
	}
}
