package apk

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"unicode/utf16"
)

// androidNS is the namespace of the android: attributes.
const androidNS = "http://schemas.android.com/apk/res/android"

// Build makes a minimal APK for m: a zip holding only a binary AndroidManifest.xml, laid out as
// aapt2 lays one out (UTF-16 string pool, resource map, android namespace). Phones refuse it
// (no code, no signature); the simulators install it as m.Package.
func Build(m Manifest) ([]byte, error) {
	if !validPackage(m.Package) {
		return nil, fmt.Errorf("build an APK: %q is no package name (e.g. com.example.app)", m.Package)
	}
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	w, err := z.Create(manifestName)
	if err != nil {
		return nil, fmt.Errorf("build an APK: %w", err)
	}
	if _, err := w.Write(encodeManifest(m, false)); err != nil {
		return nil, fmt.Errorf("build an APK: %w", err)
	}
	if err := z.Close(); err != nil {
		return nil, fmt.Errorf("build an APK: %w", err)
	}
	return b.Bytes(), nil
}

// encodeManifest writes <manifest package= android:versionCode= android:versionName=/> as
// binary XML, its string pool in UTF-8 when utf8 is set.
func encodeManifest(m Manifest, utf8 bool) []byte {
	// The attribute names with resource ids come first, as the resource map requires.
	strs := []string{"versionCode", "versionName", "android", androidNS, "manifest", "package", m.Package, m.VersionName}
	const (
		sVersionCode = iota
		sVersionName
		sPrefix
		sURI
		sManifest
		sPackage
		sPackageValue
		sVersionNameValue
		none = 0xffffffff
	)
	var body []byte
	body = append(body, stringPool(strs, utf8)...)
	body = append(body, chunk(chunkResourceMap, 8, u32s(attrVersionCode, attrVersionName))...)
	body = append(body, chunk(0x0100, 16, u32s(1, none, sPrefix, sURI))...)
	attr := func(ns, name, raw uint32, typ byte, data uint32) []byte {
		a := u32s(ns, name, raw)
		a = binary.LittleEndian.AppendUint16(a, 8)
		a = append(a, 0, typ)
		return binary.LittleEndian.AppendUint32(a, data)
	}
	attrs := [][]byte{
		attr(sURI, sVersionCode, none, typeIntDec, m.VersionCode),
		attr(none, sPackage, sPackageValue, typeString, sPackageValue),
	}
	if m.VersionName != "" {
		attrs = append(attrs, attr(sURI, sVersionName, sVersionNameValue, typeString, sVersionNameValue))
	}
	ext := u32s(1, none, none, sManifest)
	ext = binary.LittleEndian.AppendUint16(ext, 20) // attributeStart
	ext = binary.LittleEndian.AppendUint16(ext, 20) // attributeSize
	ext = binary.LittleEndian.AppendUint16(ext, uint16(len(attrs)))
	ext = append(ext, 0, 0, 0, 0, 0, 0) // id, class and style indexes
	for _, a := range attrs {
		ext = append(ext, a...)
	}
	body = append(body, chunk(chunkStartElement, 16, ext)...)
	body = append(body, chunk(0x0103, 16, u32s(1, none, none, sManifest))...)
	body = append(body, chunk(0x0101, 16, u32s(1, none, sPrefix, sURI))...)
	return chunk(chunkXML, 8, body)
}

// stringPool is a string pool chunk of strs.
func stringPool(strs []string, utf8 bool) []byte {
	var data, offsets []byte
	for _, s := range strs {
		offsets = binary.LittleEndian.AppendUint32(offsets, uint32(len(data)))
		if utf8 {
			data = appendLen8(appendLen8(data, len(utf16.Encode([]rune(s)))), len(s))
			data = append(append(data, s...), 0)
			continue
		}
		u := utf16.Encode([]rune(s))
		if len(u) > 0x7fff {
			data = binary.LittleEndian.AppendUint16(data, uint16(len(u)>>16|0x8000))
		}
		data = binary.LittleEndian.AppendUint16(data, uint16(len(u)))
		for _, c := range append(u, 0) {
			data = binary.LittleEndian.AppendUint16(data, c)
		}
	}
	for len(data)%4 != 0 {
		data = append(data, 0)
	}
	flags := uint32(0)
	if utf8 {
		flags = poolUTF8
	}
	const hdr = 28
	head := u32s(uint32(len(strs)), 0, flags, uint32(hdr+len(offsets)), 0)
	return chunk(chunkStringPool, hdr, append(append(head, offsets...), data...))
}

// appendLen8 appends a UTF-8 pool string's length.
func appendLen8(b []byte, n int) []byte {
	if n > 0x7f {
		return append(b, byte(n>>8)|0x80, byte(n))
	}
	return append(b, byte(n))
}

// chunk is a chunk of type typ whose header is hdr bytes: the 8-byte chunk header, then rest
// (the header's remainder and the body).
func chunk(typ uint16, hdr uint16, rest []byte) []byte {
	c := binary.LittleEndian.AppendUint16(nil, typ)
	c = binary.LittleEndian.AppendUint16(c, hdr)
	c = binary.LittleEndian.AppendUint32(c, uint32(8+len(rest)))
	return append(c, rest...)
}

// u32s writes little-endian 32-bit words.
func u32s(v ...uint32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	return b
}
