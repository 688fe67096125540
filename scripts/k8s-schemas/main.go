// Command k8s-schemas turns the Kubernetes OpenAPI document (api/openapi-spec/swagger.json of
// the k8s.io/kubernetes module) and CustomResourceDefinition files into the JSON schemas
// kubeconform reads, so that `kubeconform -strict` validates the chart offline.
//
// Layout (what kubeconform's -schema-location templates expect):
//
//	OUT/v<version>-standalone-strict/<kind><-group>-<version>.json   one per built-in kind
//	OUT/crds/<group>/<kind>_<version>.json                           one per CRD version
//
// Every schema is standalone (the definitions it refers to are embedded, no $ref leaves the
// file) and strict: an object with listed properties admits no other ones, as the API server
// with field validation does. Descriptions are dropped, they do not validate anything.
// int-or-string fields accept both, and quantities accept strings and numbers, as the API
// server does. scripts/setup.sh runs it; see docs/helm.md.
//
//	go run ./scripts/k8s-schemas -swagger swagger.json -crd a.yaml -crd b.yaml \
//	    -kubernetes-version 1.37.2 -out .tools/k8s-schemas
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

const (
	draft4     = "http://json-schema.org/draft-04/schema#"
	refPrefix  = "#/definitions/"
	objectMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
	quantity   = "io.k8s.apimachinery.pkg.api.resource.Quantity"
)

type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

func main() {
	var crds repeated
	swagger := flag.String("swagger", "", "the Kubernetes OpenAPI v2 document (api/openapi-spec/swagger.json)")
	version := flag.String("kubernetes-version", "", "the Kubernetes version of that document, e.g. 1.37.2 (names the output folder)")
	out := flag.String("out", "", "output folder (kubeconform's -schema-location)")
	flag.Var(&crds, "crd", "a YAML file of CustomResourceDefinitions (repeatable)")
	flag.Parse()
	if *swagger == "" || *version == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: k8s-schemas -swagger swagger.json -kubernetes-version 1.37.2 -out DIR [-crd FILE]...")
		os.Exit(2)
	}
	n, err := run(*swagger, *version, *out, crds)
	if err != nil {
		fmt.Fprintln(os.Stderr, "k8s-schemas:", err)
		os.Exit(1)
	}
	fmt.Printf("k8s-schemas: %d schemas written to %s\n", n, *out)
}

// run writes every schema and returns how many it wrote.
func run(swaggerPath, version, out string, crdPaths []string) (int, error) {
	raw, err := os.ReadFile(swaggerPath)
	if err != nil {
		return 0, fmt.Errorf("read the OpenAPI document: %w (scripts/setup.sh fetches it with the k8s.io/kubernetes module)", err)
	}
	defs, err := loadDefinitions(raw)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", swaggerPath, err)
	}
	files, err := builtinSchemas(defs)
	if err != nil {
		return 0, err
	}
	dir := filepath.Join(out, "v"+strings.TrimPrefix(version, "v")+"-standalone-strict")
	for name, schema := range files {
		if err := writeJSON(filepath.Join(dir, name), schema); err != nil {
			return 0, err
		}
	}
	n := len(files)
	for _, p := range crdPaths {
		b, err := os.ReadFile(p)
		if err != nil {
			return 0, fmt.Errorf("read CRD file: %w", err)
		}
		schemas, err := crdSchemas(b, defs)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", p, err)
		}
		for name, schema := range schemas {
			if err := writeJSON(filepath.Join(out, "crds", name), schema); err != nil {
				return 0, err
			}
		}
		n += len(schemas)
	}
	return n, nil
}

// loadDefinitions returns the "definitions" of an OpenAPI v2 document, made strict.
func loadDefinitions(raw []byte) (map[string]any, error) {
	var doc struct {
		Definitions map[string]any `json:"definitions"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("not an OpenAPI v2 document: %w", err)
	}
	if len(doc.Definitions) == 0 {
		return nil, errors.New("no definitions: is this the v2 document (swagger.json), not a v3 one?")
	}
	for name, d := range doc.Definitions {
		if name == quantity {
			// The API server takes numbers for quantities too (cpu: 1).
			doc.Definitions[name] = map[string]any{"oneOf": []any{
				map[string]any{"type": "string"}, map[string]any{"type": "number"}}}
			continue
		}
		doc.Definitions[name] = strictify(d)
	}
	return doc.Definitions, nil
}

// gvk is one group/version/kind of a definition.
type gvk struct{ Group, Version, Kind string }

func (g gvk) apiVersion() string {
	if g.Group == "" {
		return g.Version
	}
	return g.Group + "/" + g.Version
}

// fileName is the name kubeconform looks for: lower-case kind, then the first label of the
// group (none for the core group) and the version.
func (g gvk) fileName() string {
	suffix := "-" + strings.ToLower(strings.Split(g.Group, ".")[0])
	if g.Group == "" {
		suffix = ""
	}
	return strings.ToLower(g.Kind) + suffix + "-" + strings.ToLower(g.Version) + ".json"
}

// builtinSchemas returns a standalone schema per group/version/kind of the definitions,
// by file name.
func builtinSchemas(defs map[string]any) (map[string]map[string]any, error) {
	files := map[string]map[string]any{}
	names := make([]string, 0, len(defs))
	for name := range defs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		def, _ := defs[name].(map[string]any)
		gvks := kinds(def)
		if len(gvks) == 0 {
			continue
		}
		for _, g := range gvks {
			schema := deepCopy(def).(map[string]any)
			setEnum(schema, "kind", g.Kind)
			setEnum(schema, "apiVersion", g.apiVersion())
			if err := embed(schema, defs); err != nil {
				return nil, fmt.Errorf("definition %s: %w", name, err)
			}
			files[g.fileName()] = schema
		}
	}
	if len(files) == 0 {
		return nil, errors.New("no definition has x-kubernetes-group-version-kind: not a Kubernetes OpenAPI document")
	}
	return files, nil
}

// kinds reads x-kubernetes-group-version-kind.
func kinds(def map[string]any) []gvk {
	list, _ := def["x-kubernetes-group-version-kind"].([]any)
	var out []gvk
	for _, e := range list {
		m, _ := e.(map[string]any)
		g, _ := m["group"].(string)
		v, _ := m["version"].(string)
		k, _ := m["kind"].(string)
		if v != "" && k != "" {
			out = append(out, gvk{g, v, k})
		}
	}
	return out
}

// setEnum pins property prop of an object schema to value (kind and apiVersion).
func setEnum(schema map[string]any, prop, value string) {
	props, _ := schema["properties"].(map[string]any)
	p, ok := props[prop].(map[string]any)
	if !ok {
		return
	}
	p["enum"] = []any{value}
}

// embed puts into schema["definitions"] every definition schema refers to, transitively,
// so that the file needs nothing else.
func embed(schema map[string]any, defs map[string]any) error {
	seen := map[string]bool{}
	queue := refs(schema, nil)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		d, ok := defs[name]
		if !ok {
			return fmt.Errorf("$ref to %s, which the document does not define", name)
		}
		seen[name] = true
		queue = refs(d, queue)
	}
	if len(seen) == 0 {
		return nil
	}
	embedded := map[string]any{}
	for name := range seen {
		embedded[name] = defs[name]
	}
	schema["definitions"] = embedded
	return nil
}

// refs appends the definition names of every local $ref in v.
func refs(v any, acc []string) []string {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if s, ok := e.(string); ok && k == "$ref" && strings.HasPrefix(s, refPrefix) {
				acc = append(acc, strings.TrimPrefix(s, refPrefix))
				continue
			}
			acc = refs(e, acc)
		}
	case []any:
		for _, e := range v {
			acc = refs(e, acc)
		}
	}
	return acc
}

// strictify rewrites an OpenAPI schema (v2 definitions and CRD openAPIV3Schema alike) into a
// strict JSON schema (draft 4, what kubeconform compiles): descriptions dropped, objects with
// properties closed unless x-kubernetes-preserve-unknown-fields or x-kubernetes-embedded-resource
// say otherwise, int-or-string as a string or an integer, nullable as a null type.
func strictify(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			switch k {
			case "description", "example", "x-kubernetes-list-map-keys", "x-kubernetes-list-type",
				"x-kubernetes-map-type", "x-kubernetes-patch-merge-key", "x-kubernetes-patch-strategy",
				"x-kubernetes-unions", "x-kubernetes-validations":
				continue
			case "properties", "definitions", "patternProperties":
				// maps of names to schemas: the names are not keywords
				m, _ := e.(map[string]any)
				props := map[string]any{}
				for name, s := range m {
					props[name] = strictify(s)
				}
				out[k] = props
				continue
			}
			out[k] = strictify(e)
		}
		if f, _ := out["format"].(string); f == "int-or-string" || out["x-kubernetes-int-or-string"] == true {
			delete(out, "format")
			delete(out, "type")
			if _, ok := out["anyOf"]; !ok {
				out["oneOf"] = []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}
			}
		}
		if out["nullable"] == true {
			if t, ok := out["type"].(string); ok {
				out["type"] = []any{t, "null"}
			}
		}
		delete(out, "nullable")
		_, hasProps := out["properties"]
		_, hasAdditional := out["additionalProperties"]
		open := out["x-kubernetes-preserve-unknown-fields"] == true || out["x-kubernetes-embedded-resource"] == true
		if hasProps && !hasAdditional && !open {
			out["additionalProperties"] = false
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = strictify(e)
		}
		return out
	default:
		return v
	}
}

// crdSchemas returns a schema per version of each CustomResourceDefinition in a YAML stream,
// by path under crds/: <group>/<kind>_<version>.json. The object's metadata is held to the
// built-in ObjectMeta when defs has it.
func crdSchemas(b []byte, defs map[string]any) (map[string]map[string]any, error) {
	out := map[string]map[string]any{}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("not valid YAML: %w", err)
		}
		if doc["kind"] != "CustomResourceDefinition" {
			continue
		}
		spec, _ := doc["spec"].(map[string]any)
		group, _ := spec["group"].(string)
		names, _ := spec["names"].(map[string]any)
		kind, _ := names["kind"].(string)
		versions, _ := spec["versions"].([]any)
		if group == "" || kind == "" || len(versions) == 0 {
			return nil, errors.New("a CustomResourceDefinition without spec.group, spec.names.kind or spec.versions (only apiextensions.k8s.io/v1 CRDs are read)")
		}
		for _, v := range versions {
			ver, _ := v.(map[string]any)
			name, _ := ver["name"].(string)
			s, _ := ver["schema"].(map[string]any)
			api, ok := s["openAPIV3Schema"].(map[string]any)
			if !ok {
				continue
			}
			schema := jsonable(strictify(api)).(map[string]any)
			setEnum(schema, "kind", kind)
			setEnum(schema, "apiVersion", group+"/"+name)
			if props, ok := schema["properties"].(map[string]any); ok && defs[objectMeta] != nil {
				props["metadata"] = map[string]any{"$ref": refPrefix + objectMeta}
				if err := embed(schema, defs); err != nil {
					return nil, err
				}
			}
			out[filepath.Join(group, strings.ToLower(kind)+"_"+name+".json")] = schema
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no CustomResourceDefinition with an openAPIV3Schema")
	}
	return out, nil
}

// jsonable turns what YAML decoded into what encoding/json writes the same way: YAML integers
// become float64 like JSON numbers, so both inputs give the same schemas.
func jsonable(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = jsonable(e)
		}
		return v
	case []any:
		for i, e := range v {
			v[i] = jsonable(e)
		}
		return v
	case int:
		return float64(v)
	default:
		return v
	}
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = deepCopy(e)
		}
		return out
	default:
		return v
	}
}

func writeJSON(path string, schema map[string]any) error {
	schema["$schema"] = draft4
	b, err := json.Marshal(schema)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
