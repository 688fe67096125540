package adbsim

import (
	"archive/zip"
	"bytes"
	"testing"

	"github.com/corral-farm/corral/nodes/android/apk"
)

// paddedAPK is an APK of pkg (apk.Build's) with a stored classes.dex of pad bytes, so that
// pushing it takes many sync packets.
func paddedAPK(t testing.TB, pkg string, pad int) []byte {
	t.Helper()
	built, err := apk.Build(apk.Manifest{Package: pkg, VersionName: "1.0", VersionCode: 1})
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(built), int64(len(built)))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for _, f := range zr.File {
		if err := z.Copy(f); err != nil {
			t.Fatal(err)
		}
	}
	w, err := z.CreateHeader(&zip.FileHeader{Name: "classes.dex", Method: zip.Store})
	if err == nil {
		_, err = w.Write(bytes.Repeat([]byte("dex"), pad/3))
	}
	if err == nil {
		err = z.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
